import HealthRecord
import CSQLCipher
import Synchronization

/// A number that changes whenever a write transaction commits to the database, from any process: the
/// `iChange` field of the WAL-index header ("incremented with each transaction",
/// https://sqlite.org/walformat.html), read from the shared memory that every connection to a WAL
/// database maps.
///
/// Reading it is one load from memory: no lock on the database, no system call, nothing that can block.
/// That is what lets a cached answer be known fresh on a NIO event loop. A cache keyed by it must read it
/// *before* reading the data it caches: data newer than its key is harmless, older is stale.
///
/// The region is SQLite's own mapping, got through the VFS (`xShmMap`), not a second `open` of the
/// `-shm` file: closing a descriptor of our own would drop every POSIX lock this process holds on that
/// file, SQLite's included. The mapping lives as long as a connection to the database is open in this
/// process, so `close()` is called before the pool closes its connections, and reads take the same lock.
final class CommitCounter: Sendable {
    /// Byte offset of `iChange` in the first copy of the WAL-index header.
    static let changeFieldOffset = 8

    /// The mapped header, or nil once closed or when the database has no WAL index (then every read
    /// answers nil and callers take the path that reads the store).
    private let header: Mutex<UnsafeRawPointerBox?>

    /// Maps the WAL index of `database`'s main file. nil when the connection has none (not in WAL mode,
    /// a VFS without shared memory).
    init(database: Database) {
        header = Mutex(database.walIndexHeader().map(UnsafeRawPointerBox.init))
    }

    /// The current count, or nil when unknown (closed, or no WAL index).
    var value: UInt32? {
        header.withLock { box in
            // An aligned 32-bit load is single-copy atomic on every platform Swift runs on; SQLite
            // writes the header with a memory barrier between its two copies.
            box?.pointer.load(fromByteOffset: Self.changeFieldOffset, as: UInt32.self)
        }
    }

    /// Stops reading the mapping. Call before closing the connections, which unmap it.
    func close() {
        header.withLock { $0 = nil }
    }
}

/// A pointer into memory that SQLite maps and only SQLite writes; `CommitCounter` reads it under its lock.
struct UnsafeRawPointerBox: @unchecked Sendable {
    let pointer: UnsafeRawPointer
}

extension Database {
    /// The start of the WAL-index shared memory (region 0, where the header lives), or nil.
    func walIndexHeader() -> UnsafeRawPointer? {
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
              let file, let methods = file.pointee.pMethods, methods.pointee.iVersion >= 2,
              let shmMap = methods.pointee.xShmMap
        else { return nil }
        var region: UnsafeMutableRawPointer?
        // 32 KiB is SQLite's region size; bExtend 0: map what exists, never grow the file.
        let rc = shmMap(file, 0, 32 * 1024, 0, &region)
        guard rc == SQLITE_OK, let region else { return nil }
        return UnsafeRawPointer(region)
    }
}
