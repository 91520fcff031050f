import HealthRecord

extension Database {
    /// Runs `body` (one very large transaction) with the database written in place through a rollback
    /// journal when this is the only connection open to it, and through the WAL as usual otherwise; the
    /// connection is in WAL again after. `body` is told which.
    ///
    /// In WAL, each page a transaction writes is written twice: into the log, then by the checkpoint into
    /// the database. A 1,000,000-entry import logs 1 GB and then spends 3–4 s copying and syncing it again. A
    /// rollback journal writes a page once, in place, and journals only the pages the database had before
    /// (a new patient's pages are new), and is as safe against a crash: the next connection to open the
    /// database plays a journal left behind back before it turns WAL on again. SQLite lets a connection
    /// leave WAL only when no other connection has the database open (a daemon serving it, a reader of
    /// this process); otherwise the attempt fails at once and nothing changes. While such a transaction
    /// runs in place, no other process can read the database: one that opens it meanwhile waits for it
    /// (the busy timeout), then gives up with "the store is busy".
    public func withRollbackJournalIfAlone<T>(_ body: (_ inPlace: Bool) throws -> T) throws -> T {
        let inPlace = try leaveWAL()
        // Should turning WAL on again fail (another process opened the database in the instant between
        // the commit and this), that process, like every connection that opens the database, turns it on.
        defer { if inPlace { _ = try? scalar("PRAGMA journal_mode = WAL", as: String.self) } }
        return try body(inPlace)
    }

    /// Whether the connection left WAL for a rollback journal: false, at once, when another connection
    /// has the database open.
    private func leaveWAL() throws -> Bool {
        let timeout = try scalar("PRAGMA busy_timeout", as: Int64.self) ?? 0
        try execute("PRAGMA busy_timeout = 0")
        defer { try? execute("PRAGMA busy_timeout = \(timeout)") }
        do {
            return try scalar("PRAGMA journal_mode = TRUNCATE", as: String.self) == "truncate"
        } catch let error as DatabaseError {
            guard error.isBusy else { throw error }
            return false
        }
    }
}
