import Dispatch
import Foundation
@testable import ImportJobs
import Records
import HealthRecord
import Store
import Synchronization
import TestSupport
import Testing

/// A record file imported as it is read (`StreamedRecordImport`): one thread reads and prepares batches,
/// the store's writer writes them, in one transaction.
@Suite("importing a record file as it is read")
struct StreamedRecordImportTests {
    /// A record of `count` results, each with its own `_id`, as RHEx JSON.
    static func record(count: Int) -> String {
        PatientRecord.record("big", name: "Ann Lee", entries: (0..<count).map { i in
            .entry(.result, "Potassium \(i % 7)", at: 1_000_000 + Int64(i) * 3_600, value: 4 + Double(i % 10) / 10, units: "mmol/L",
                   sourceID: "r\(i)")
        }).rhexJSON()
    }

    static func withStore(_ body: (Store) throws -> Void) throws {
        let dir = TemporaryDirectory("hreaderd-streamed-import")
        let (store, _) = try TestStore.create(at: dir.file("state"))
        defer { store.close() }
        try body(store)
    }

    static func storedIDs(_ store: Store) throws -> [String] {
        try store.readSync { db in try db.rows("SELECT id FROM entries ORDER BY id") { $0.string(0) } }
    }

    @Test("a record of many batches: the summary and the entries of the record parsed whole and imported; progress to the end")
    func importsAsWhole() throws {
        let json = Self.record(count: 12_000)
        try withTemporaryFile(json) { path in
            try Self.withStore { streamed in
                try Self.withStore { whole in
                    var reported: [Int] = []
                    let file = try StreamedRecordFile(path: path)
                    let head = try #require(try file.readHead())
                    #expect(head.entries == 12_000)
                    let summary = try StreamedRecordImport.run(file, head: head, store: streamed, options: .replace) { written in
                        reported.append(written)
                    }
                    let expected = try whole.importRecordSync(try RecordParser().parse(Array(json.utf8)))
                    #expect(summary == expected)
                    #expect(summary.entriesAdded == 12_000)
                    #expect(reported.last == 12_000)
                    #expect(reported == reported.sorted())
                    let (streamedIDs, wholeIDs) = (try Self.storedIDs(streamed), try Self.storedIDs(whole))
                    #expect(streamedIDs == wholeIDs)
                    #expect(streamedIDs.count == 12_000)
                }
            }
        }
    }

    @Test("the file read differs from its head (it changed between the passes): refused before any entry is written, nothing written")
    func changedFile() throws {
        let before = Self.record(count: 9_000)
        let after = Self.record(count: 9_001)
        let head = try #require(try withTemporaryFile(before) { try StreamedRecordFile(path: $0).readHead() })
        try withTemporaryFile(after) { path in
            try Self.withStore { store in
                let file = try StreamedRecordFile(path: path)
                var written = 0
                #expect(throws: RecordFileError.readFailed(path: path, reason: "the file changed while it was imported")) {
                    try StreamedRecordImport.run(file, head: head, store: store, options: .replace) { written = $0 }
                }
                // The second pass reads the record again before its entries and finds the difference.
                #expect(written == 0)
                let patients = try store.patientsSync()
                #expect(patients.isEmpty)
                let rows = try store.readSync { db in try db.scalar("SELECT count(*) FROM entries", as: Int64.self) }
                #expect(rows == 0)
            }
        }
    }

    @Test("the store refuses the record while the reader is ahead of it: the store's error, the reader stopped, nothing written")
    func storeRefuses() throws {
        // More batches than the reader may run ahead (4): it waits for room when the writer gives up.
        let json = Self.record(count: 20_000)
        try withTemporaryFile(json) { path in
            try Self.withStore { store in
                let missing = ImportOptions(mode: .replace, patientID: "p_nobody")
                let file = try StreamedRecordFile(path: path)
                let head = try #require(try file.readHead())
                #expect(throws: StoreError.self) {
                    try StreamedRecordImport.run(file, head: head, store: store, options: missing)
                }
                let patients = try store.patientsSync()
                #expect(patients.isEmpty)
                // The store is still usable: the same file imports.
                let summary = try StreamedRecordImport.run(file, head: head, store: store, options: .replace)
                #expect(summary.entriesAdded == 20_000)
            }
        }
    }

    @Test("the handoff: what the consumer does while it waits runs only when no item is there, before the wait")
    func handoffWhileWaiting() throws {
        let handoff = BatchHandoff<Int>(capacity: 2)
        #expect(handoff.put(.batch(1)))
        var waited = 0
        guard case .batch(1) = handoff.take(whileWaiting: { waited += 1 }) else { Issue.record("expected batch 1"); return }
        #expect(waited == 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { handoff.put(.batch(2)) }
        guard case .batch(2) = handoff.take(whileWaiting: { waited += 1 }) else { Issue.record("expected batch 2"); return }
        #expect(waited == 1)
        struct Failed: Error {}
        #expect(throws: Failed.self) { try handoff.take(whileWaiting: { throw Failed() }) }
        // Its error ends the take: an item put later is still there for the next.
        #expect(handoff.put(.end))
        guard case .end = handoff.take(whileWaiting: { waited += 1 }) else { Issue.record("expected the end"); return }
        #expect(waited == 1)
    }

    @Test("the handoff: a producer waiting for room is let go when the consumer stops; items arrive in order")
    func handoff() throws {
        let handoff = BatchHandoff<Int>(capacity: 2)
        #expect(handoff.put(.batch(1)))
        #expect(handoff.put(.batch(2)))
        let third = DispatchSemaphore(value: 0)
        let accepted = Atomic<Int>(-1)
        DispatchQueue.global().async {
            accepted.store(handoff.put(.batch(3)) ? 1 : 0, ordering: .releasing)
            third.signal()
        }
        // Full: the third waits for room.
        #expect(third.wait(timeout: .now() + 0.2) == .timedOut)
        guard case .batch(1) = handoff.take() else { Issue.record("expected batch 1"); return }
        #expect(third.wait(timeout: .now() + 10) == .success)
        #expect(accepted.load(ordering: .acquiring) == 1)
        guard case .batch(2) = handoff.take() else { Issue.record("expected batch 2"); return }
        #expect(handoff.put(.batch(4)))
        // Full again; the consumer stops: the waiting producer is told so, and so is every later one.
        let fifth = DispatchSemaphore(value: 0)
        let fifthAccepted = Atomic<Int>(-1)
        DispatchQueue.global().async {
            fifthAccepted.store(handoff.put(.batch(5)) ? 1 : 0, ordering: .releasing)
            fifth.signal()
        }
        #expect(fifth.wait(timeout: .now() + 0.2) == .timedOut)
        handoff.stop()
        #expect(fifth.wait(timeout: .now() + 10) == .success)
        #expect(fifthAccepted.load(ordering: .acquiring) == 0)
        #expect(!handoff.put(.end))
    }
}
