import Foundation
import Testing
import TimelineAPI
import HealthRecord
@testable import Store

/// A record whose entries come a batch at a time (`importRecordSync(_:entries:)`, the import of a record
/// too large to hold whole) against the same record imported whole.
@Suite("record import a batch at a time")
struct BatchedRecordImportTests {
    /// Every stored column of every entry, and the search index's rows, in a comparable form.
    private func storedRows(_ store: Store) throws -> (entries: [String], searchRows: Int) {
        try store.readSync { db in
            let entries = try db.rows("""
                SELECT id, type, description, date, time, start_time, end_time, status, value, text_value, units, codes,
                       source_entry_id, raw, hex(content_hash), ongoing_end, timeline_json FROM entries ORDER BY id
                """) { row in (0..<17).map { "\(row[$0])" }.joined(separator: "|") }
            let searchRows = try db.scalar("SELECT count(*) FROM search", as: Int64.self) ?? -1
            return (entries, Int(searchRows))
        }
    }

    private func batches(_ entries: [Entry], of size: Int) -> [[Entry]] {
        stride(from: 0, to: entries.count, by: size).map { Array(entries[$0..<min($0 + size, entries.count)]) }
    }

    private func importInBatches(_ record: PatientRecord, size: Int, into store: Store) throws -> ImportSummary {
        var head = record
        head.entries = []
        return try store.importRecordSync(head, entries: { write in
            for batch in batches(record.entries, of: size) { try write(try store.prepare(batch)) }
        })
    }

    @Test("in batches the store holds what the whole record gives: every column, the summary, the search index")
    func sameAsWhole() throws {
        let (wholeDir, batchedDir) = (TemporaryDirectory(), TemporaryDirectory())
        let (whole, _, _) = try makeStore(in: wholeDir)
        let (batched, _, _) = try makeStore(in: batchedDir)
        defer { whole.close(); batched.close() }
        // More than one step of the search index (8,192 new entries), in batches that do not divide it.
        let record = PatientRecord.record(entries: .numbered(20_000))
        let expected = try whole.importRecordSync(record)
        let got = try importInBatches(record, size: 3_000, into: batched)
        #expect(got == expected)
        #expect(got.entriesAdded == 20_000)
        let (wholeRows, batchedRows) = (try storedRows(whole), try storedRows(batched))
        #expect(batchedRows.entries == wholeRows.entries)
        #expect(batchedRows.searchRows == 20_000)
        #expect(wholeRows.searchRows == 20_000)
        let hits = try batched.searchSync(SearchTerms.parse("marker"), filter: SearchFilter(patientIDs: [got.patientID]), limit: 1).total
        #expect(hits == 20_000)
        #expect(try batched.patientsSync()[0].entryCount == 20_000)

        // A changed record, again in batches: updated, added and removed as whole.
        var changed = record
        changed.entries[5].value = 42
        changed.entries.removeLast(10)
        changed.entries.append(.entry(.procedure, "New", id: "e_new", at: 5))
        let expectedChange = try whole.importRecordSync(changed)
        let gotChange = try importInBatches(changed, size: 700, into: batched)
        #expect(gotChange == expectedChange)
        #expect((gotChange.entriesAdded, gotChange.entriesUpdated, gotChange.entriesRemoved) == (1, 1, 10))
        #expect(try storedRows(batched).entries == storedRows(whole).entries)
    }

    @Test("pages written out between batches: the log grows, readers see nothing until the commit, which keeps all")
    func changedPagesWrittenOut() throws {
        let (wholeDir, batchedDir) = (TemporaryDirectory(), TemporaryDirectory())
        let (whole, _, _) = try makeStore(in: wholeDir)
        let (batched, _, state) = try makeStore(in: batchedDir)
        defer { whole.close(); batched.close() }
        let record = PatientRecord.record(entries: .numbered(6_000))
        let expected = try whole.importRecordSync(record)
        var head = record
        head.entries = []
        let log = state.databasePath + "-wal"
        func logBytes() -> Int { (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0 }
        var grown = 0
        let got = try batched.importRecordSync(head, entries: { write in
            for batch in batches(record.entries, of: 1_000) {
                try write(try batched.prepare(batch))
                let before = logBytes()
                try write.writeOutChangedPages()
                if logBytes() > before { grown += 1 }
                // Not committed: another connection sees none of it.
                #expect(try batched.readSync { db in try db.scalar("SELECT count(*) FROM entries", as: Int64.self) } == 0)
            }
        })
        #expect(grown == 6)
        #expect(got == expected)
        #expect(try storedRows(batched).entries == storedRows(whole).entries)
        #expect(try batched.readSync { db in try db.scalar("PRAGMA integrity_check", as: String.self) } == "ok")
    }

    @Test("an error the batches' reader throws half-way is thrown as it is, and nothing of the record is written, pages written out before it or not",
          arguments: [false, true])
    func readerErrorRollsBack(pagesWrittenOut: Bool) throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        struct CutShort: Error, Equatable {}
        var head = PatientRecord.record(entries: .numbered(0))
        head.entries = []
        let entries = PatientRecord.record(entries: .numbered(3_000)).entries
        #expect(throws: CutShort()) {
            try store.importRecordSync(head, entries: { write in
                try write(try store.prepare(Array(entries[0..<2_000])))
                if pagesWrittenOut { try write.writeOutChangedPages() }
                try write(try store.prepare(Array(entries[2_000...])))
                throw CutShort()
            })
        }
        #expect(try store.patientsSync().isEmpty)
        #expect(try store.readSync { db in try db.scalar("SELECT count(*) FROM entries", as: Int64.self) } == 0)
        #expect(try store.readSync { db in try db.scalar("PRAGMA integrity_check", as: String.self) } == "ok")
        // And the store takes the record afterwards.
        #expect(try importInBatches(.record(entries: .numbered(3_000)), size: 1_000, into: store).entriesAdded == 3_000)
    }

    @Test("an id given twice, in two batches, is refused and nothing is written; so is the record whole")
    func duplicateAcrossBatches() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        var record = PatientRecord.record(entries: .numbered(10))
        record.entries.append(record.entries[2])
        let inBatches = #expect(throws: StoreError.self) { try importInBatches(record, size: 4, into: store) }
        #expect("\(inBatches.map { "\($0)" } ?? "")".contains("the record holds two entries with the id e_2"))
        let whole = #expect(throws: StoreError.self) { try store.importRecordSync(record) }
        #expect("\(whole.map { "\($0)" } ?? "")".contains("the record holds two entries with the id e_2"))
        #expect(try store.patientsSync().isEmpty)
    }

    @Test("in batches: an id stored already and given twice is refused; a merge removes nothing; a document is refused")
    func storedDuplicateMergeAndDocuments() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        _ = try store.importRecordSync(.record(entries: .numbered(10)))
        var twice = PatientRecord.record(entries: .numbered(10))
        twice.entries.append(twice.entries[3])
        let refused = #expect(throws: StoreError.self) { try importInBatches(twice, size: 4, into: store) }
        #expect("\(refused.map { "\($0)" } ?? "")".contains("the record holds two entries with the id e_3"))
        #expect(try store.patientsSync()[0].entryCount == 10)

        var half = PatientRecord.record(entries: .numbered(5))
        half.entries[0].value = 7
        var head = half
        head.entries = []
        let merged = try store.importRecordSync(head, entries: { write in try write(try store.prepare(half.entries)) },
                                                options: ImportOptions(mode: .merge))
        #expect((merged.entriesUpdated, merged.entriesUnchanged, merged.entriesRemoved) == (1, 4, 0))
        #expect(try store.patientsSync()[0].entryCount == 10)

        var document = head
        document.asOf = 1_000
        #expect(throws: StoreError.self) { try store.importRecordSync(document, entries: { _ in }) }
    }

    @Test("a write error that the batches' reader catches and goes on past still fails the import: nothing is written")
    func caughtWriteErrorStillFails() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        var record = PatientRecord.record(entries: .numbered(6))
        record.entries.append(record.entries[0])
        var head = record
        head.entries = []
        #expect(throws: StoreError.self) {
            try store.importRecordSync(head, entries: { write in
                try? write(try store.prepare(record.entries))  // the duplicate fails this batch; the error is dropped
                try? write(try store.prepare([.entry(.procedure, "Late", id: "e_late", at: 9)]))
            })
        }
        #expect(try store.patientsSync().isEmpty)
    }

    @Test("opened for large imports and alone: a record in batches, or whole with 10,000 entries or more, is written in place (a rollback journal, nothing logged); a smaller record, a store with a reader open, or one opened without the option, through the WAL")
    func largeImportsInPlace() throws {
        let dir = TemporaryDirectory()
        let (created, _, state) = try makeStore(in: dir)
        created.close()
        var options = Store.Options.timeline
        options.largeImportsInPlace = true
        let store = try Store.open(at: state, password: "correct horse", options: options)
        defer { store.close() }
        let (journal, wal) = (state.databasePath + "-journal", state.databasePath + "-wal")
        func size(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0 }
        func inBatches(_ record: PatientRecord, into store: Store) throws -> Int {
            var head = record
            head.entries = []
            var journalSeen = 0
            _ = try store.importRecordSync(head, entries: { write in
                for batch in batches(record.entries, of: 2_000) { try write(try store.prepare(batch)) }
                journalSeen = size(journal)
            })
            return journalSeen
        }
        // In place, the WAL is left empty (it was closed to leave WAL, and opened again after); through it, it
        // holds the import's pages after the commit.
        #expect(try inBatches(.record("streamed", entries: .numbered(20_000)), into: store) > 0, "a rollback journal while written")
        #expect(size(wal) == 0)
        _ = try store.importRecordSync(.record("whole", entries: .numbered(Store.largeImportEntries)))
        #expect(size(wal) == 0)
        _ = try store.importRecordSync(.record("small", entries: .numbered(Store.largeImportEntries - 1)))
        #expect(size(wal) > 4_096 * 100, "a smaller record logged to the WAL")
        #expect(try store.readSync { db in try db.scalar("PRAGMA journal_mode", as: String.self) } == "wal")
        // That read left a reader connection open: the store can no longer leave WAL.
        #expect(try inBatches(.record("shared", entries: .numbered(20_000)), into: store) == 0)
        _ = try store.importRecordSync(.record("whole shared", entries: .numbered(Store.largeImportEntries)))
        #expect(size(wal) > 4_096 * 100)
        #expect(try store.patientsSync().map(\.entryCount).sorted() == [9_999, 10_000, 10_000, 20_000, 20_000])
        #expect(try store.readSync { db in try db.scalar("PRAGMA integrity_check", as: String.self) } == "ok")

        // A store opened without the option (the daemon's) never leaves WAL, even alone.
        let plainDir = TemporaryDirectory()
        let (plain, _, _) = try makeStore(in: plainDir)
        defer { plain.close() }
        #expect(try inBatches(.record("daemon", entries: .numbered(20_000)), into: plain) == 0)
    }

    @Test("a connection leaves WAL for a body only when it is the only one open, at once otherwise, its busy timeout kept")
    func rollbackJournalOnlyAlone() throws {
        let dir = TemporaryDirectory()
        let key = try StoreKey.random()
        let path = dir.file("j.db")
        let db = try Database(path: path, key: key, mode: .readWriteCreate)
        try db.execute("CREATE TABLE t (x)")
        func mode(_ db: Database) throws -> String? { try db.scalar("PRAGMA journal_mode", as: String.self) }
        let alone = try db.withRollbackJournalIfAlone { inPlace in (inPlace, try mode(db)) }
        #expect(alone.0 && alone.1 == "truncate")
        #expect(try mode(db) == "wal")
        struct Failed: Error {}
        #expect(throws: Failed.self) { try db.withRollbackJournalIfAlone { _ in throw Failed() } }
        #expect(try mode(db) == "wal")

        // While a transaction in place holds the database (it has written pages out: an exclusive lock), a
        // connection that opens it waits its busy timeout and fails as busy, not as a wrong key.
        var quick = Database.Configuration()
        quick.busyTimeoutMilliseconds = 100
        try db.execute("PRAGMA cache_size = 10")
        let opening = try db.withRollbackJournalIfAlone { _ in
            try db.transaction { db in
                // More pages than the cache holds: some are written out, under the exclusive lock.
                for _ in 0..<200 { try db.execute("INSERT INTO t VALUES (randomblob(2000))") }
                return Result { try Database(path: path, key: key, mode: .readWrite, configuration: quick) }
            }
        }
        #expect(throws: DatabaseError.self) { try opening.get() }
        if case .failure(let error as DatabaseError) = opening { #expect(error.isBusy, "\(error)") }

        let other = try Database(path: path, key: key, mode: .readWrite)
        let shared = try db.withRollbackJournalIfAlone { inPlace in
            try db.transaction { db in try db.execute("INSERT INTO t VALUES (1)") }
            return (inPlace, try mode(db))
        }
        #expect(!shared.0 && shared.1 == "wal")
        #expect(try other.scalar("SELECT count(*) FROM t WHERE x = 1", as: Int64.self) == 1)
        #expect(try db.scalar("PRAGMA busy_timeout", as: Int64.self) == Int64(Database.Configuration().busyTimeoutMilliseconds))
    }

    @Test("a connection's page cache is raised for a body and set back after it, also when the body throws")
    func cacheSetBack() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("plain.db"), key: nil, mode: .readWriteCreate)
        func cacheSize() throws -> Int64? { try db.scalar("PRAGMA cache_size", as: Int64.self) }
        let before = try cacheSize()
        #expect(before == -Int64(Database.Configuration().cacheSizeKiB))
        let during = try db.withCacheSize(kib: Store.bulkImportCacheKiB) { try cacheSize() }
        #expect(during == -Int64(Store.bulkImportCacheKiB))
        #expect(try cacheSize() == before)
        struct Failed: Error {}
        #expect(throws: Failed.self) { try db.withCacheSize(kib: 1_024) { throw Failed() } }
        #expect(try cacheSize() == before)
        #expect(try db.withCacheSize(kib: nil) { try cacheSize() } == before)
        // A cache larger already is left as it is.
        try db.execute("PRAGMA cache_size = -131072")
        #expect(try db.withCacheSize(kib: Store.bulkImportCacheKiB) { try cacheSize() } == -131_072)
        #expect(try cacheSize() == -131_072)
    }
}
