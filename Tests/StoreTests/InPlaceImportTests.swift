import Foundation
import Testing
import TimelineAPI
import HealthRecord
@testable import Store

/// A large import written in place, through a rollback journal (`Database.withRollbackJournalIfAlone`):
/// rolled back whole when it fails, and the same store as the WAL writes. The crash tests are
/// `CrashRecoveryTests`; when a store leaves WAL, `BatchedRecordImportTests`.
@Suite("in-place import", .serialized)
struct InPlaceImportTests {
    @Test("a body that throws after pages went out to the file rolls back: the database is as before, and the next transaction in place commits")
    func throwingBody() throws {
        let dir = TemporaryDirectory()
        let key = try StoreKey.random()
        let db = try Database(path: dir.file("rb.db"), key: key, mode: .readWriteCreate)
        try db.execute("CREATE TABLE t (x TEXT)")
        try db.execute("INSERT INTO t (x) VALUES ('kept')")
        // 100 pages of cache for about 800 pages of rows: SQLite spills pages into the file before the throw.
        try db.execute("PRAGMA cache_size = 100")
        func fill(rows: Int, with letter: String, then end: () throws -> Void = {}) throws -> Bool {
            try db.withRollbackJournalIfAlone { inPlace in
                try db.transaction { db in
                    let insert = try db.statement("INSERT INTO t (x) VALUES (?)")
                    for i in 0..<rows { try insert.execute([String(repeating: letter, count: 300) + "\(i)"]) }
                    try end()
                }
                return inPlace
            }
        }
        struct Stop: Error {}
        #expect(throws: Stop.self) { try fill(rows: 10_000, with: "z") { throw Stop() } }
        #expect(try db.scalar("SELECT count(*) FROM t", as: Int64.self) == 1)
        #expect(try db.scalar("PRAGMA integrity_check", as: String.self) == "ok")
        #expect(try db.scalar("PRAGMA journal_mode", as: String.self) == "wal")
        #expect(try fill(rows: 10_000, with: "w"))
        #expect(try db.scalar("SELECT count(*) FROM t", as: Int64.self) == 10_001)
        #expect(try db.scalar("PRAGMA integrity_check", as: String.self) == "ok")
    }

    @Test("a large import written in place by a store opened for it stores what the same record imported through the WAL stores")
    func sameAsThroughTheWAL() throws {
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
        _ = try plain.importRecordSync(record)
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

        let reopened = try Store.open(at: state, password: "limit pw", options: .timeline)
        defer { reopened.close() }
        #expect(try reopened.readSync { db in try db.scalar("PRAGMA integrity_check", as: String.self) } == "ok")
        #expect(try reopened.patientsSync().map(\.entryCount) == [5])
    }
}
