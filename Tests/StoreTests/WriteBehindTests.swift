import Foundation
import Testing
import TimelineAPI
import HealthRecord
@testable import Store

/// The write-behind VFS (Sources/CWriteBehind): a large transaction's pages copied into a ring and written
/// by a second thread, every other operation waiting for the writes asked for before it.
@Suite("write-behind", .serialized)
struct WriteBehindTests {
    private func connection(_ path: String, key: StoreKey, writeBehind: Bool = true) throws -> Database {
        var configuration = Database.Configuration()
        configuration.writeBehind = writeBehind
        return try Database(path: path, key: key, mode: .readWriteCreate, configuration: configuration)
    }

    /// One transaction in place (when alone) adding `rows` rows of about 200 bytes to `t (x TEXT)`.
    private func fill(_ db: Database, rows: Int, with letter: String) throws {
        try db.withRollbackJournalIfAlone { _ in
            try db.transaction { db in
                let insert = try db.statement("INSERT INTO t (x) VALUES (?)")
                for i in 0..<rows { try insert.execute([String(repeating: letter, count: 200) + "\(i)"]) }
            }
        }
    }

    @Test("a transaction larger than the page cache writes behind, reads back what it wrote before its commit (pages spilled and read again), and commits a database another connection reads whole")
    func spillsAndReadsBack() throws {
        let dir = TemporaryDirectory()
        let key = try StoreKey.random()
        let path = dir.file("wb.db")
        let db = try connection(path, key: key)
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try db.execute("CREATE INDEX t_by_body ON t (body)")
        // 200 pages of cache for about 2,500 pages of rows: SQLite spills pages and reads some of them again.
        try db.execute("PRAGMA cache_size = 200")
        let rows = 20_000
        func body(_ i: Int) -> String { "row \(i) " + String(repeating: "abcdefghij", count: 20 + i % 17) }
        let inPlace = try db.withRollbackJournalIfAlone { inPlace in
            try db.transaction { db in
                let insert = try db.statement("INSERT INTO t (id, body) VALUES (?, ?)")
                for i in 0..<rows { try insert.execute([Int64(i), body(i)]) }
                // Read back inside the transaction: pages that went out behind are read from the file.
                for i in stride(from: 0, to: rows, by: 997) {
                    #expect(try db.scalar("SELECT body FROM t WHERE id = ?", [Int64(i)], as: String.self) == body(i))
                }
                #expect(try db.scalar("SELECT count(*) FROM t", as: Int64.self) == Int64(rows))
            }
            return inPlace
        }
        #expect(inPlace)
        #expect(db.pagesWrittenBehind > 1_000, "the transaction's pages went through the ring")
        #expect(try db.scalar("PRAGMA journal_mode", as: String.self) == "wal")

        let other = try connection(path, key: key, writeBehind: false)
        #expect(try other.scalar("PRAGMA integrity_check", as: String.self) == "ok")
        #expect(try other.scalar("SELECT count(*) FROM t", as: Int64.self) == Int64(rows))
        #expect(try other.scalar("SELECT body FROM t WHERE id = ?", [Int64(rows - 1)], as: String.self) == body(rows - 1))
    }

    @Test("a connection opened without it never writes behind, and writes the same database")
    func notOpenedForIt() throws {
        let dir = TemporaryDirectory()
        let key = try StoreKey.random()
        let db = try connection(dir.file("plain.db"), key: key, writeBehind: false)
        try db.execute("CREATE TABLE t (x TEXT)")
        try fill(db, rows: 5_000, with: "y")
        #expect(db.pagesWrittenBehind == 0)
        #expect(try db.scalar("SELECT count(*) FROM t", as: Int64.self) == 5_000)
        #expect(try db.scalar("PRAGMA integrity_check", as: String.self) == "ok")
    }

    @Test("a connection that does not sync (synchronous = OFF) writes in place: a write's error could reach SQLite only with a sync")
    func notWithoutSyncs() throws {
        let dir = TemporaryDirectory()
        let key = try StoreKey.random()
        let db = try connection(dir.file("nosync.db"), key: key)
        try db.execute("CREATE TABLE t (x TEXT)")
        try db.execute("PRAGMA synchronous = OFF")
        try fill(db, rows: 5_000, with: "s")
        #expect(db.pagesWrittenBehind == 0)
        #expect(try db.scalar("SELECT count(*) FROM t", as: Int64.self) == 5_000)
        try db.execute("PRAGMA synchronous = FULL")
        try fill(db, rows: 5_000, with: "f")
        #expect(db.pagesWrittenBehind > 0)
    }

    @Test("a body that throws rolls back: the database is as before, and write-behind is off again for the next transaction")
    func throwingBody() throws {
        let dir = TemporaryDirectory()
        let key = try StoreKey.random()
        let db = try connection(dir.file("rb.db"), key: key)
        try db.execute("CREATE TABLE t (x TEXT)")
        try db.execute("INSERT INTO t (x) VALUES ('kept')")
        try db.execute("PRAGMA cache_size = 100")
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try db.withRollbackJournalIfAlone { _ in
                try db.transaction { db in
                    let insert = try db.statement("INSERT INTO t (x) VALUES (?)")
                    for i in 0..<10_000 { try insert.execute([String(repeating: "z", count: 300) + "\(i)"]) }
                    throw Stop()
                }
            }
        }
        #expect(try db.scalar("SELECT count(*) FROM t", as: Int64.self) == 1)
        #expect(try db.scalar("PRAGMA integrity_check", as: String.self) == "ok")
        // On again for the next one: the ring was given back.
        let before = db.pagesWrittenBehind
        try fill(db, rows: 10_000, with: "w")
        #expect(db.pagesWrittenBehind > before)
        #expect(try db.scalar("SELECT count(*) FROM t", as: Int64.self) == 10_001)
    }

    @Test("a large import written in place by a store opened for it writes behind, and stores what the same record imported through the WAL stores")
    func storeImportsWriteBehind() throws {
        let inPlaceDir = TemporaryDirectory(), walDir = TemporaryDirectory()
        let (created, _, state) = try makeStore(in: inPlaceDir)
        created.close()
        var options = Store.Options.timeline
        options.largeImportsInPlace = true
        let store = try Store.open(at: state, password: "correct horse", options: options)
        defer { store.close() }
        let (plain, _, _) = try makeStore(in: walDir)
        defer { plain.close() }
        let record = PatientRecord.record("large", entries: .numbered(Store.largeImportEntries))
        _ = try store.importRecordSync(record)
        #expect(try store.writeSync { db in db.pagesWrittenBehind } > 100)
        _ = try plain.importRecordSync(record)
        #expect(try plain.writeSync { db in db.pagesWrittenBehind } == 0, "the daemon's store never writes behind")
        func rows(_ store: Store) throws -> [String] {
            try store.readSync { db in
                try db.rows("SELECT id, description, raw, timeline_json FROM entries ORDER BY id") { row in
                    (0..<4).map { "\(row[$0])" }.joined(separator: "|")
                }
            }
        }
        let stored = try rows(store)
        #expect(stored.count == Store.largeImportEntries)
        #expect(stored == (try rows(plain)))
        #expect(try store.readSync { db in try db.scalar("PRAGMA integrity_check", as: String.self) } == "ok")
    }

    @Test("a page write that fails (the file-size limit reached) fails the import with a clear error, and the store is as it was: intact, nothing of the record in it", .timeLimit(.minutes(2)))
    func failedWrite() throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir, password: "limit pw")
        _ = try store.importRecordSync(.record("before", entries: .numbered(5)))
        store.close()
        let size = try FileManager.default.attributesOfItem(atPath: state.databasePath)[.size] as? Int ?? 0
        // The limit lies 2 MB past the file: a batch of 20,000 entries (about 10 MB) fails at one of its pages.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: productsDirectory + "/hreaderd-crashwriter")
        writer.arguments = [state.path, "limit pw", "20000", "streamed", "--file-size-limit", String(size + 2_000_000)]
        let (output, errors) = (Pipe(), Pipe())
        writer.standardOutput = output
        writer.standardError = errors
        try writer.run()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        writer.waitUntilExit()
        #expect(writer.terminationStatus == 1)
        #expect(said.contains("begin 1") && !said.contains("committed"), "\(said)")
        #expect(complaint.contains("disk I/O error") || complaint.contains("disk is full"), "\(complaint)")
        #expect(complaint.contains("pages written behind: ") && !complaint.contains("pages written behind: 0"), "\(complaint)")

        let reopened = try Store.open(at: state, password: "limit pw", options: .timeline)
        defer { reopened.close() }
        #expect(try reopened.readSync { db in try db.scalar("PRAGMA integrity_check", as: String.self) } == "ok")
        #expect(try reopened.patientsSync().map(\.entryCount) == [5])
    }
}
