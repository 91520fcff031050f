import HealthRecord
import CSQLCipher
import CWriteBehind

extension Database {
    /// Runs `body` (one very large transaction) with the database file writing behind: each page SQLCipher
    /// encrypts is copied into a ring and written out by a second thread, so that the commit's encryption and
    /// the kernel's copy of 100 MB into the page cache run on two cores instead of one after the other. Every
    /// other operation on the database's files (reads, syncs, locks, the journal) first waits for the writes
    /// asked for before it, so the files always hold a prefix of what SQLite asked for, in its order: as safe
    /// against a kill or a power loss as writing in place (see Sources/CWriteBehind/write_behind.c).
    ///
    /// For the in-place large import (`withRollbackJournalIfAlone`), whose transaction no other connection
    /// reads. `body` runs with the writes in place when the connection was not opened for it
    /// (`Configuration.writeBehind`), does not sync (`synchronous = OFF`), or write-behind cannot be turned on
    /// (another file of the process writes behind, no memory for the ring).
    public func withWriteBehind<T>(_ body: () throws -> T) throws -> T {
        let pageSize = Int32(truncatingIfNeeded: try scalar("PRAGMA page_size", as: Int64.self) ?? 0)
        // A write's error reaches SQLite at the latest with the commit's sync of the file: without syncs
        // (`synchronous = OFF`) it could be lost, so the writes stay in place.
        let syncs = (try scalar("PRAGMA synchronous", as: Int64.self) ?? 0) > 0
        guard pageSize > 0, syncs, switchWriteBehind(pageSize) == SQLITE_OK else { return try body() }
        let result: T
        do { result = try body() } catch {
            _ = switchWriteBehind(0)
            throw error
        }
        // Every write was synced by the commit, which waited for them: an error here is one no statement saw.
        let rc = switchWriteBehind(0)
        guard rc == SQLITE_OK else {
            throw DatabaseError(code: rc, message: "a page written behind failed: \(String(cString: sqlite3_errstr(rc)))")
        }
        return result
    }

    /// How many pages of the database file this connection has written behind: for tests, which show that
    /// a path writes behind. 0 for a connection not opened through the write-behind VFS.
    public var pagesWrittenBehind: Int64 {
        var pages: Int64 = 0
        return sqlite3_file_control(handle, "main", HREADERD_FCNTL_PAGES_BEHIND, &pages) == SQLITE_OK ? pages : 0
    }

    /// `pageSize` > 0: on; 0: off, after every write asked for is done (answering the first error one met).
    private func switchWriteBehind(_ pageSize: Int32) -> Int32 {
        var argument = pageSize
        return sqlite3_file_control(handle, "main", HREADERD_FCNTL_WRITE_BEHIND, &argument)
    }
}
