import HealthRecord
import CSQLCipher
import FoundationEssentials

/// One SQLCipher connection. Not thread-safe by design: a `Database` is owned by exactly one queue
/// (the store's writer or one reader slot), which is how the `Store` hands it out.
public final class Database {
    let handle: OpaquePointer
    public let path: String
    private var statementCache: [String: Statement] = [:]
    /// What `onWALCommit` registered; the connection's WAL hook points at it.
    private var walCommitHandler: WALCommitHandler?

    public enum OpenMode: Sendable {
        case readWrite
        case readWriteCreate
        case readOnly
    }

    /// Settings applied to every connection once it is keyed.
    public struct Configuration: Sendable {
        /// Page cache per connection, in KiB. A family's records are a few MB; the 100k-entry benchmark
        /// patient is ~60 MB, so a generous cache keeps the hot part of the timeline index in memory.
        public var cacheSizeKiB: Int = 16 * 1024
        /// How long a connection waits for a lock held by another process (e.g. `hreaderd sync` beside
        /// a serving daemon) before giving up with SQLITE_BUSY.
        public var busyTimeoutMilliseconds: Int = 5_000
        public init() {}
    }

    /// SQLCipher page size. 4096 matches the file-system block size; SQLCipher 3's default is 1024.
    /// Measured against larger pages (A/B, this machine): 16 KiB made a 1,000,000-entry import 25% faster
    /// (30–31 s → 22.5–24 s) but every small transaction writes and encrypts whole pages, and the sync of
    /// 500 small records took 20–25% longer (0.92 → 1.15 s; four downloads 0.52 → 0.75 s); 8 KiB cost the
    /// sync almost as much for a 10% faster import. A family's store lives on small writes, so 4 KiB stays.
    public static let cipherPageSize = 4096

    /// SQLite's process-wide settings, made once before the first connection opens (CSQLCipher's shim says
    /// why each). True when SQLite took them all, which it does only before it is first used.
    static let libraryConfigured: Bool = {
        let statistics = hreaderd_sqlite3_disable_memory_statistics()
        let pageCache = hreaderd_sqlite3_no_page_cache_bulk()
        return statistics == SQLITE_OK && pageCache == SQLITE_OK
    }()

    /// Opens (and, with a key, decrypts) a database. A wrong key fails here, with `SQLITE_NOTADB`.
    public init(path: String, key: StoreKey?, mode: OpenMode = .readWrite, configuration: Configuration = .init()) throws(DatabaseError) {
        _ = Self.libraryConfigured
        var db: OpaquePointer?
        var flags: Int32 = SQLITE_OPEN_NOMUTEX
        switch mode {
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open database"
            sqlite3_close_v2(db)
            throw DatabaseError(code: rc, message: message)
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        do throws(DatabaseError) {
            let registered = CodeValuesFunction.register(on: db)
            guard registered == SQLITE_OK else { throw error(code: registered, sql: "sqlite3_create_function_v2") }
            if let key {
                try applyKey(key)
                try execute("PRAGMA cipher_page_size = \(Self.cipherPageSize)")
                try execute("PRAGMA cipher_use_hmac = ON")
            }
            // Before the first read: another process may hold the database (a large import written in place).
            try execute("PRAGMA busy_timeout = \(configuration.busyTimeoutMilliseconds)")
            // The first read of the schema is where SQLCipher finds out whether the key is right.
            try execute("SELECT count(*) FROM sqlite_master")
            try execute("PRAGMA cache_size = -\(configuration.cacheSizeKiB)")
            // Temporary tables and sort spills stay in memory, never in a plaintext temp file.
            try execute("PRAGMA temp_store = MEMORY")
            try execute("PRAGMA foreign_keys = ON")
            if mode != .readOnly {
                try execute("PRAGMA journal_mode = WAL")
                // FULL: the WAL is fsynced at every commit, so an acknowledged write survives power loss.
                try execute("PRAGMA synchronous = FULL")
            }
        } catch {
            statementCache.removeAll()
            sqlite3_close_v2(db)
            throw error
        }
    }

    deinit {
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Calls `handler` with the number of pages in the WAL after each commit of this connection, on its
    /// thread, inside the commit. Takes the place of SQLite's automatic checkpoint, which this connection then
    /// no longer does (`WALCheckpointer` does it elsewhere).
    func onWALCommit(_ handler: @escaping @Sendable (Int) -> Void) {
        let box = WALCommitHandler(handler)
        walCommitHandler = box
        sqlite3_wal_hook(handle, { context, _, _, pages in
            guard let context else { return SQLITE_OK }
            Unmanaged<WALCommitHandler>.fromOpaque(context).takeUnretainedValue().handler(Int(pages))
            return SQLITE_OK
        }, Unmanaged.passUnretained(box).toOpaque())
    }

    private func applyKey(_ key: StoreKey) throws(DatabaseError) {
        // SQLCipher's raw-key syntax: x'<64 hex digits>' uses the bytes directly, with no KDF.
        var literal = key.rawKeyLiteral()
        defer { wipe(&literal) }
        let rc = literal.withUnsafeBytes { raw in
            sqlite3_key(handle, raw.baseAddress, Int32(raw.count))
        }
        guard rc == SQLITE_OK else { throw error(code: rc, sql: "sqlite3_key") }
    }

    func error(code: Int32, sql: String?) -> DatabaseError {
        let extended = sqlite3_extended_errcode(handle)
        let message = String(cString: sqlite3_errmsg(handle))
        return DatabaseError(code: extended != 0 ? extended : code, message: message, sql: sql)
    }

    /// Writes the pages the open transaction has changed so far out of this connection's page cache: into the
    /// WAL (uncommitted frames, which no reader sees and a crash drops) or, written in place, into the file
    /// behind its rollback journal, as SQLite does itself when the cache fills. The commit then has only the
    /// pages changed since to write. A page changed again is written again (in the WAL, over its own frame).
    public func writeOutChangedPages() throws(DatabaseError) {
        let rc = sqlite3_db_cacheflush(handle)
        // Busy: a page could not be written for now; it stays in the cache for the commit.
        // Its error is not the connection's last (sqlite3_errmsg would say "not an error"): said from its code.
        guard rc == SQLITE_OK || rc == SQLITE_BUSY else {
            throw DatabaseError(code: rc, message: String(cString: sqlite3_errstr(rc)), sql: "sqlite3_db_cacheflush")
        }
    }

    /// Runs one or more SQL statements with no arguments and no result rows.
    public func execute(_ sql: String) throws(DatabaseError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw DatabaseError(code: sqlite3_extended_errcode(handle), message: message, sql: sql)
        }
    }

    /// Runs one statement with arguments.
    public func execute(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws(DatabaseError) {
        try statement(sql).execute(arguments)
    }

    /// A prepared statement for `sql`, cached on this connection: hot queries are compiled once.
    public func statement(_ sql: String) throws(DatabaseError) -> Statement {
        if let cached = statementCache[sql] { return cached }
        let statement = try Statement(database: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Maps every row of a query.
    public func rows<T>(_ sql: String, _ arguments: [any DatabaseValueConvertible] = [], _ transform: (Row) throws -> T) throws -> [T] {
        try statement(sql).map(arguments, transform)
    }

    /// The first row of a query, mapped, or nil.
    public func row<T>(_ sql: String, _ arguments: [any DatabaseValueConvertible] = [], _ transform: (Row) throws -> T) throws -> T? {
        try statement(sql).first(arguments, transform)
    }

    /// The first column of the first row, or nil when there is no row or it is NULL.
    public func scalar<T: DatabaseValueConvertible>(_ sql: String, _ arguments: [any DatabaseValueConvertible] = [], as type: T.Type = T.self) throws -> T? {
        try statement(sql).first(arguments) { row -> T? in
            row.isNull(0) ? nil : try row.get(0, as: T.self)
        } ?? nil
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    public enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED"
        /// Takes the write lock at BEGIN, so a writer never fails half-way on a lock upgrade.
        case immediate = "IMMEDIATE"
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: (Database) throws -> T) throws -> T {
        try execute("BEGIN \(kind.rawValue) TRANSACTION")
        do {
            let result = try body(self)
            try execute("COMMIT TRANSACTION")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK TRANSACTION") }
            throw error
        }
    }

    /// Runs `body` with this connection's page cache at least `kib` (nil: as it is), then sets it back.
    public func withCacheSize<T>(kib: Int?, _ body: () throws -> T) throws -> T {
        guard let kib else { return try body() }
        let before = try scalar("PRAGMA cache_size", as: Int64.self) ?? -2_000
        // Negative: KiB; positive: pages.
        let beforeKiB = before < 0 ? Int(-before) : Int(before) * Self.cipherPageSize / 1_024
        guard kib > beforeKiB else { return try body() }
        try execute("PRAGMA cache_size = -\(kib)")
        defer { try? execute("PRAGMA cache_size = \(before)") }
        return try body()
    }

    /// Runs `body` in a savepoint, which nests inside a transaction: rolled back alone when it throws.
    public func savepoint<T>(_ name: String = "sp", _ body: (Database) throws -> T) throws -> T {
        try execute("SAVEPOINT \(name)")
        do {
            let result = try body(self)
            try execute("RELEASE SAVEPOINT \(name)")
            return result
        } catch {
            try? execute("ROLLBACK TO SAVEPOINT \(name)")
            try? execute("RELEASE SAVEPOINT \(name)")
            throw error
        }
    }
}

/// The closure a connection's WAL hook calls, kept alive by the connection.
private final class WALCommitHandler {
    let handler: @Sendable (Int) -> Void
    init(_ handler: @escaping @Sendable (Int) -> Void) { self.handler = handler }
}
