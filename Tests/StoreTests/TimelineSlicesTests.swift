import Foundation
import HealthRecord
import Testing
import TimelineAPI
@testable import Store

@Suite("A window read in slices")
struct TimelineSlicesTests {
    @Test("the slices are kept together only when read at one revision: a change between them reads the window again")
    func changeBetweenSlices() async throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        let patientID = try store.importRecordSync(.record(entries: .numbered(40))).patientID
        let (start, end): (Int64, Int64) = (0, 4_000_000_000)
        let bounds = TimelineSnapshotQuery.sliceBounds(from: start, to: end, count: Store.parallelSlices)
        let first = try store.readSync { db in
            try TimelineSnapshotQuery.read(patientID: patientID, from: start, to: end, datedUpTo: bounds[1], in: db)
        }
        func later() throws -> [TimelineSnapshotQuery.Slice] {
            try (1..<Store.parallelSlices).map { k in
                try store.readSync { db in
                    try TimelineSnapshotQuery.laterSlice(patientID: patientID, from: bounds[k] + 1, to: bounds[k + 1], in: db)
                }
            }
        }
        guard case .snapshot(let snapshot) = TimelineSnapshotQuery.combine(first, try later()) else {
            Issue.record("read at one revision, kept")
            return
        }
        let whole = try #require(try await store.timelineSnapshot(patientID: patientID, from: start, to: end))
        #expect(whole.entryCount == 40)
        #expect(snapshot.entryCount == whole.entryCount && snapshot.sections == whole.sections && snapshot.vitalSigns == whole.vitalSigns)

        // A post lands after the first part was read: the later slices are of a newer revision.
        _ = try await store.addTimelinePost(patientID: patientID, kind: .levels, dataJSON: #"{"pain":"3"}"#, createdAt: 1_000)
        guard case .changed = TimelineSnapshotQuery.combine(first, try later()) else {
            Issue.record("slices of two revisions were put together")
            return
        }
        // The store reads it again, whole: the post is on the page.
        let again = try #require(try await store.timelineSnapshot(patientID: patientID, from: start, to: end, inSlices: true))
        #expect(again.posts.count == 1 && again.entryCount == 40)

        guard case .noPatient = TimelineSnapshotQuery.combine(nil, try later()) else {
            Issue.record("no patient, no snapshot")
            return
        }
    }

    @Test("a window read in slices keeps each slice's vital signs as a run of its own, and gives the page read whole")
    func vitalSignRuns() async throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        var record = PatientRecord.record("vitals-in-slices", entries: .numbered(10))
        let (start, end): (Int64, Int64) = (0, 4_000_000_000)
        for k in 0..<40 {
            let date = Int64(k) * 97_000_000 + 5_000
            record.entries.append(.entry(.vitalSign, k % 2 == 0 ? "Heart Rate" : "Body Weight", id: "v_\(k)", at: date,
                                         value: Double(60 + k), units: k % 2 == 0 ? "/min" : "kg"))
        }
        let patientID = try store.importRecordSync(record).patientID
        let whole = try #require(try await store.timelineSnapshot(patientID: patientID, from: start, to: end))
        let sliced = try #require(try await store.timelineSnapshot(patientID: patientID, from: start, to: end, inSlices: true))
        #expect(whole.vitalSignRuns.count == 1 && whole.vitalSignCount == 40)
        #expect(sliced.vitalSignRuns.count > 4, "one run a slice that holds vital signs: \(sliced.vitalSignRuns.count)")
        #expect(sliced.vitalSigns == whole.vitalSigns && sliced.vitalSignCount == 40 && sliced.entryCount == whole.entryCount)
        let window = TimelineWindow(start: start, end: end)
        #expect(TimelinePayload.encode(sliced, window: window) == TimelinePayload.encode(whole, window: window))
    }

    @Test("slice bounds run from the window's start to its end, in order, whatever its length")
    func bounds() {
        for (start, end): (Int64, Int64) in [(0, 8), (0, 9), (-5, 1_000_003), (1_000, 4_000_000_000), (0, Int64(Int32.max) * 4)] {
            let bounds = TimelineSnapshotQuery.sliceBounds(from: start, to: end, count: 8)
            #expect(bounds.count == 9 && bounds.first == start && bounds.last == end)
            #expect(zip(bounds, bounds.dropFirst()).allSatisfy { $0 < $1 })
        }
    }

    @Test("lists joined keep every object, their marks moved by what came before, and take more after")
    func joinedLists() {
        var first = EntryList()
        first.append(json: Array(#"{"id":"a"}"#.utf8))
        first.append(json: Array(#"{"id":"b"}"#.utf8), markedAs: "b")
        var second = EntryList()
        second.append(json: Array(#"{"id":"c"}"#.utf8), markedAs: "c")
        var joined = first
        joined.append(contentsOf: second)
        joined.append(json: Array(#"{"id":"d"}"#.utf8))
        #expect(String(decoding: joined.json, as: UTF8.self) == #"{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}"#)
        #expect(joined.count == 4 && joined.byteCount == joined.json.count)
        #expect(joined.annotated.map(\.entryID) == ["b", "c"])
        for mark in joined.annotated { #expect(joined.json[mark.closingBrace] == UInt8(ascii: "}")) }
        #expect(String(decoding: second.json, as: UTF8.self) == #"{"id":"c"}"#, "the list joined is left as it was")
        #expect(String(decoding: first.json, as: UTF8.self) == #"{"id":"a"},{"id":"b"}"#, "the list joined to is left as it was")
        // The comma between them is a piece of its own: the first list's piece is shared, not copied to take it.
        let firstPiece = first.pieces[0].withUnsafeBufferPointer { $0.baseAddress }
        #expect(joined.pieces[0].withUnsafeBufferPointer { $0.baseAddress } == firstPiece)
        var empty = EntryList()
        empty.append(contentsOf: second)
        #expect(empty == second)
    }
}
