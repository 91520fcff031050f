import HealthRecord
import CSQLCipher

/// An error reported by SQLite/SQLCipher, carrying its result code, its message and the SQL that failed.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// SQLite's extended result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT_UNIQUE`, …).
    public let code: Int32
    public let message: String
    public let sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code (the low byte of the extended code).
    public var primaryCode: Int32 { code & 0xff }

    public var isConstraintViolation: Bool { primaryCode == SQLITE_CONSTRAINT }
    /// SQLITE_CONSTRAINT_UNIQUE: a row with the same key is there already.
    public var isUniqueViolation: Bool { code == SQLITE_CONSTRAINT | (8 << 8) }
    /// SQLITE_NOTADB: with SQLCipher this is what a wrong key (or a file that is not a database) looks like.
    public var isNotADatabase: Bool { primaryCode == SQLITE_NOTADB }
    public var isDiskFull: Bool { primaryCode == SQLITE_FULL }
    public var isReadOnly: Bool { primaryCode == SQLITE_READONLY }
    /// SQLITE_IOERR: reading or writing the files failed (EIO, or EROFS from a file system the kernel
    /// remounted read-only after an error).
    public var isIOError: Bool { primaryCode == SQLITE_IOERR }
    /// SQLITE_CANTOPEN: a file of the store could not be opened or created (a read-only state directory:
    /// WAL mode must create its `-shm` and `-wal` files even to read).
    public var isCannotOpen: Bool { primaryCode == SQLITE_CANTOPEN }
    /// SQLITE_BUSY: another process held the write lock for longer than the connection waits for it
    /// (`Database.Configuration.busyTimeoutMilliseconds`): `hreaderd import-file` or `sync` beside a daemon.
    public var isBusy: Bool { primaryCode == SQLITE_BUSY }

    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " (in: \(sql.prefix(200)))" }
        return text
    }
}
