import Dispatch
import Synchronization

/// Copies the WAL back into the database file on a thread of its own, so that the writer never does.
///
/// SQLite checkpoints when a commit leaves `pagesBeforeCheckpoint` pages or more in the WAL, and by default
/// the connection that committed does it, inside its commit: every page written once more, then the file
/// synced. For the daemon's upload of 100,000 FHIR resources that was 0.22–0.25 s of a 2.2 s job, on the
/// writer's queue, where every other write waits. Here the writer's commit only hands the WAL's length on
/// (`Database.onCommit`), and a connection of the checkpointer's own, opened for the work and closed after
/// it, does a passive checkpoint: readers and the writer go on meanwhile, as they do during SQLite's own.
///
/// Nothing is at risk while a checkpoint waits: a committed transaction is in the WAL, synced, and every
/// connection reads it from there. A checkpoint that fails (the disk full, say) is counted, its reason told
/// to `onFailure` (the daemon's log), and tried again after the next commit; until then the WAL is longer,
/// never wrong.
final class WALCheckpointer: Sendable {
    /// SQLite's own threshold (`SQLITE_DEFAULT_WAL_AUTOCHECKPOINT`): about 4 MiB of 4 KiB pages.
    static let pagesBeforeCheckpoint = 1_000
    /// The checkpointer's own connection reads the schema and copies pages without its page cache.
    static let connectionCacheKiB = 256

    private let queue = DispatchQueue(label: "hreaderd.store.checkpointer")
    private let openConnection: @Sendable () throws -> Database
    private let threshold: Int
    /// A checkpoint is queued and has not started: commits meanwhile queue no other.
    private let queued = Atomic<Bool>(false)
    private let closed = Atomic<Bool>(false)
    private let state = Mutex(Counts())
    /// Told the reason of each failed checkpoint (the daemon logs it).
    private let onFailure: (@Sendable (String) -> Void)?

    struct Counts: Sendable, Equatable {
        /// Checkpoints that ran to the end.
        var completed = 0
        /// Checkpoints that failed (opening the connection or the checkpoint itself), and the last reason.
        var failed = 0
        var lastError: String?
    }

    init(threshold: Int = WALCheckpointer.pagesBeforeCheckpoint, onFailure: (@Sendable (String) -> Void)? = nil,
         openConnection: @escaping @Sendable () throws -> Database) {
        self.threshold = threshold
        self.onFailure = onFailure
        self.openConnection = openConnection
    }

    /// What has run so far (for tests and diagnostics).
    var counts: Counts { state.withLock { $0 } }

    /// A commit left `pages` pages in the WAL: from the threshold up, a checkpoint is queued unless one is.
    /// Called on the writer's thread, inside its commit: it only queues.
    func committed(walPages pages: Int) {
        guard pages >= threshold, !closed.load(ordering: .acquiring),
              queued.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        queue.async { [self] in
            queued.store(false, ordering: .releasing)
            guard !closed.load(ordering: .acquiring) else { return }
            checkpoint()
        }
    }

    /// Stops queueing and waits for a checkpoint that is running (its connection closes with it).
    func close() {
        closed.store(true, ordering: .releasing)
        drain()
    }

    /// Holds the checkpointer's queue until `body` returns: what a commit queues meanwhile waits (tests).
    func whileHeld<T>(_ body: () throws -> T) rethrows -> T {
        queue.suspend()
        defer { queue.resume() }
        return try body()
    }

    /// Waits until the checkpoints queued so far have run (tests).
    func drain() {
        queue.sync {}
    }

    private func checkpoint() {
        do {
            let db = try openConnection()
            // PASSIVE: as much as no reader still needs, without waiting for anyone.
            try db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            state.withLock { $0.completed += 1 }
        } catch {
            let reason = "\(error)"
            state.withLock { counts in
                counts.failed += 1
                counts.lastError = reason
            }
            onFailure?(reason)
        }
    }
}
