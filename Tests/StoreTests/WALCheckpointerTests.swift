import Foundation
import Synchronization
import Testing
import TimelineAPI
@testable import Store

@Suite("The WAL checkpointer")
struct WALCheckpointerTests {
    /// The main database file's size: it grows only when a checkpoint copies the WAL's pages into it.
    private func mainFileBytes(_ state: StateDirectory) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: state.databasePath)[.size] as? Int)
    }

    /// One transaction of `rows` rows of 4,000 random bytes: about a page each.
    private func writeRows(_ rows: Int, to store: Store) throws {
        try store.writeSync { db in
            try db.execute("CREATE TABLE IF NOT EXISTS filler (data BLOB)")
            for _ in 0..<rows { try db.execute("INSERT INTO filler VALUES (randomblob(4000))") }
        }
    }

    /// The rows `writeRows` wrote, read from the store opened again.
    private func fillerRows(reopening state: StateDirectory) throws -> Int64? {
        let reopened = try Store.open(at: state, password: "correct horse", options: .timeline)
        defer { reopened.close() }
        return try reopened.readSync { db in try db.scalar("SELECT count(*) FROM filler", as: Int64.self) }
    }

    private func makeConnection(in dir: TemporaryDirectory) -> @Sendable () throws -> Database {
        let path = dir.file("plain.sqlite")
        return { try Database(path: path, key: nil, mode: .readWriteCreate) }
    }

    @Test("a commit that leaves 1,000 pages in the WAL is checkpointed on the checkpointer's thread, not in the commit")
    func largeCommitCheckpointedElsewhere() throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir)
        let checkpointer = try #require(store.checkpointer, "the daemon's store checkpoints in the background")
        let before = try mainFileBytes(state)
        try checkpointer.whileHeld {
            try writeRows(1_200, to: store)
            // Committed, its pages in the WAL only: the writer did not copy them into the file.
            #expect(try mainFileBytes(state) == before)
            #expect(checkpointer.counts.completed == 0)
        }
        checkpointer.drain()
        #expect(checkpointer.counts == WALCheckpointer.Counts(completed: 1, failed: 0, lastError: nil))
        #expect(try mainFileBytes(state) >= before + 1_200 * Database.cipherPageSize)
        store.close()

        #expect(try fillerRows(reopening: state) == 1_200)
    }

    @Test("a small commit queues no checkpoint")
    func smallCommit() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        let checkpointer = try #require(store.checkpointer)
        try writeRows(10, to: store)
        checkpointer.drain()
        #expect(checkpointer.counts.completed == 0)
    }

    @Test("the threshold at its edge: 999 pages queue nothing, 1,000 queue one checkpoint")
    func thresholdEdge() throws {
        let dir = TemporaryDirectory()
        let opened = Atomic<Int>(0)
        let connection = makeConnection(in: dir)
        let checkpointer = WALCheckpointer(threshold: WALCheckpointer.pagesBeforeCheckpoint) {
            opened.add(1, ordering: .relaxed)
            return try connection()
        }
        checkpointer.committed(walPages: WALCheckpointer.pagesBeforeCheckpoint - 1)
        checkpointer.drain()
        #expect(opened.load(ordering: .relaxed) == 0)
        checkpointer.committed(walPages: WALCheckpointer.pagesBeforeCheckpoint)
        checkpointer.drain()
        #expect(opened.load(ordering: .relaxed) == 1)
        #expect(checkpointer.counts.completed == 1)
    }

    @Test("commits while a checkpoint is queued queue no other")
    func coalesced() throws {
        let dir = TemporaryDirectory()
        let checkpointer = WALCheckpointer(threshold: 1, openConnection: makeConnection(in: dir))
        checkpointer.whileHeld {
            for pages in 1...5 { checkpointer.committed(walPages: pages) }
        }
        checkpointer.drain()
        #expect(checkpointer.counts.completed == 1)
    }

    @Test("a checkpoint that fails is counted and told with its reason, and the next commit tries again")
    func failureThenRetry() throws {
        let dir = TemporaryDirectory()
        let attempts = Atomic<Int>(0)
        let connection = makeConnection(in: dir)
        let told = Mutex<[String]>([])
        let checkpointer = WALCheckpointer(threshold: 1, onFailure: { reason in told.withLock { $0.append(reason) } }) {
            if attempts.add(1, ordering: .relaxed).newValue == 1 {
                throw DatabaseError(code: 10, message: "disk I/O error")
            }
            return try connection()
        }
        checkpointer.committed(walPages: 5)
        checkpointer.drain()
        #expect(checkpointer.counts.failed == 1)
        #expect(checkpointer.counts.lastError?.contains("disk I/O error") == true)
        #expect(checkpointer.counts.completed == 0)
        #expect(told.withLock { $0 }.count == 1 && told.withLock { $0 }.first?.contains("disk I/O error") == true, "the failure is told")
        checkpointer.committed(walPages: 6)
        checkpointer.drain()
        #expect(checkpointer.counts.completed == 1)
        #expect(told.withLock { $0 }.count == 1, "a checkpoint that succeeds tells nothing")
    }

    @Test("once closed, a commit queues nothing; a store closes at once after a large commit, nothing lost")
    func closed() throws {
        let dir = TemporaryDirectory()
        let checkpointer = WALCheckpointer(threshold: 1, openConnection: makeConnection(in: dir))
        checkpointer.close()
        checkpointer.committed(walPages: 10)
        checkpointer.drain()
        #expect(checkpointer.counts.completed == 0)

        let (store, _, state) = try makeStore(in: dir)
        try writeRows(1_100, to: store)
        store.close()  // the checkpoint queued by the commit runs first, or not at all
        #expect(try fillerRows(reopening: state) == 1_100)
    }

    @Test("a store opened for in-place imports checkpoints as SQLite does, with no second connection")
    func inPlaceStoreKeepsSQLiteCheckpoint() throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir)
        store.close()
        var options = Store.Options.timeline
        options.largeImportsInPlace = true
        let own = try Store.open(at: state, password: "correct horse", options: options)
        defer { own.close() }
        #expect(own.checkpointer == nil)
        let before = try mainFileBytes(state)
        try writeRows(1_200, to: own)
        #expect(try mainFileBytes(state) >= before + 1_000 * Database.cipherPageSize, "checkpointed in the commit")
    }
}
