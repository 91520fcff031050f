import Foundation
import HTTPKit
import HealthRecord
import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// A long record's `all` page and export written as they are read (`TimelineStream`, `ExportStream`) are
/// the page and the export read whole, byte for byte.
@Suite("timeline pages and exports written in parts")
struct TimelineStreamTests {
    static let base: Int64 = 1_000_000_000
    static let types: [EntryType] = [.condition, .result, .vitalSign, .medication, .encounter, .vitalSign, .immunization,
                                     .procedure, .allergy, .socialHistory, .careGoal, .medicalEquipment]
    static let vitals = ["Heart Rate", "Systolic Blood Pressure", "Diastolic Blood Pressure", "Body Weight"]

    /// Every kind of entry, several on the same second (ties go by id), some with only a start and an end,
    /// some dated after the page's end but begun within it, vital signs without a number.
    static func record() -> PatientRecord {
        var entries: [Entry] = []
        for index in 0..<1_300 {
            let type = types[index % types.count]
            let id = "e\(String(format: "%05d", (index * 7_919) % 10_007))"
            let time = base + Int64(index / 3) * 3_600
            switch type {
            case .vitalSign:
                let description = vitals[index % vitals.count]
                entries.append(.entry(type, description, id: id, at: time,
                                      value: index % 50 == 0 ? nil : Double(60 + index % 70), text: index % 50 == 0 ? "unknown" : nil,
                                      units: description == "Body Weight" ? "kg" : "mm[Hg]"))
            case .condition where index % 5 == 0:
                entries.append(.entry(type, "Span \(index)", id: id, start: time, end: time + 86_400 * 30, status: "active"))
            default:
                entries.append(.entry(type, "\(type.rawValue) \(index)", id: id, at: time, status: "completed",
                                      value: type == .result ? Double(index) / 10 : nil, units: type == .result ? "mg/dL" : nil,
                                      codes: ["LOINC": ["\(index)-1"]]))
            }
        }
        // Dated long after the rest (their time), begun within it (their start): after every dated entry.
        for index in 0..<9 {
            entries.append(.entry(index % 2 == 0 ? .condition : .vitalSign, "Late \(index)", id: "late\(index)",
                                  at: base + 400 * 86_400 + Int64(index), start: base + Int64(index) * 7_200, value: 70 + Double(index)))
        }
        // Undated: on no page, at the end of the export.
        for index in 0..<5 {
            entries.append(.entry(.result, "Undated \(index)", id: "undated\(index)", value: Double(index)))
        }
        return .record("long", name: "Long Record", entries: entries)
    }

    /// The store with the record, annotations on three entries, the person's readings and posts.
    static func filled(_ store: Store) async throws -> String {
        let patientID = try store.importRecordSync(record()).patientID
        for entryID in ["e00000", "late0", "e00014"] {
            _ = try await store.setAnnotation(Annotation(entryID: entryID, note: "note on \(entryID)"), patientID: patientID, now: base)
        }
        for (index, kind) in [Reading.Kind.weight, .bloodPressure, .pulse].enumerated() {
            _ = try await store.addReading(Reading(id: "", patientID: patientID, kind: kind, takenAt: base + Int64(index) * 50_000 + 1,
                                                   value: kind == .weight ? 70 : 120, secondValue: kind == .bloodPressure ? 80 : nil,
                                                   unit: kind.units[0], createdAt: base, updatedAt: base))
        }
        _ = try await store.addTimelinePost(patientID: patientID, kind: .levels, dataJSON: #"{"pain":"3"}"#, createdAt: base + 10)
        return patientID
    }

    /// The page read whole, as `TimelineReader` reads a shorter record's.
    static func whole(_ store: Store, head: TimelineHead, window: TimelineWindow) async throws -> [UInt8] {
        let snapshot = try #require(try await store.timelineSnapshot(patientID: head.patientID, from: window.start, to: window.end))
        return TimelinePayload.encode(snapshot, window: window)
    }

    static func streamed(_ stream: TimelineStream) async throws -> (bytes: [UInt8], chunks: Int) {
        var bytes: [UInt8] = []
        var chunks = 0
        while let chunk = try await stream.next() {
            bytes += chunk.readableBytesView
            chunks += 1
        }
        return (bytes, chunks)
    }

    @Test("in parts of a few entries, with the page's end after every entry and in the middle of them", arguments: [
        Int64(1_100_000_000), base + 10 * 86_400,
    ])
    func sameBytes(end: Int64) async throws {
        let dir = TemporaryDirectory()
        let (store, _) = try TestStore.create(at: dir.file("state"))
        defer { store.close() }
        let patientID = try await Self.filled(store)
        let head = try #require(try await store.timelineHead(patientID: patientID, withEarliest: true))
        let window = TimelineWindow.of(.all, endingAt: end, earliest: head.earliest, calendar: ServedApp.utc)
        let expected = try await Self.whole(store, head: head, window: window)
        let page = try JSONSerialization.jsonObject(with: Data(expected)) as? [String: Any] ?? [:]
        // The comparison covers what it should: entries of many types, vital signs with the person's readings,
        // annotations, posts.
        #expect((page["conditions"] as? [Any])?.isEmpty == false && (page["medical_equipment"] as? [Any])?.isEmpty == false)
        // The late entries are in either window (begun in it), and after every entry dated in it.
        #expect(String(decoding: expected, as: UTF8.self).contains("note on late0"))
        #expect(String(decoding: expected, as: UTF8.self).contains("\"condition 1296\"") == (end > Self.base + 432 * 3_600))
        #expect(String(decoding: expected, as: UTF8.self).contains("\"self_reported\":[") && expected.count > 100_000)

        // The vital signs are read with the first array's entries: parts of one row split them at every row.
        for entries in [7, 1, 2_000] {
            let stream = TimelineStream(store: store, head: head, window: window, entriesPerPart: entries, chunkBytes: 4_096)
            let (bytes, chunks) = try await Self.streamed(stream)
            #expect(bytes == expected, "parts of \(entries): \(bytes.count) bytes against \(expected.count)")
            #expect(chunks > 10)
        }
    }

    @Test("a window that only the ends of entries begun before it reach: those lead their type's parts")
    func spanningFromBefore() async throws {
        let dir = TemporaryDirectory()
        let (store, _) = try TestStore.create(at: dir.file("state"))
        defer { store.close() }
        let patientID = try await Self.filled(store)
        let head = try #require(try await store.timelineHead(patientID: patientID, withEarliest: true))
        // Every dated entry lies before it; the spans of the first days end in it (30 days after their start).
        let window = TimelineWindow(start: Self.base + 25 * 86_400, end: Self.base + 35 * 86_400)
        let expected = try await Self.whole(store, head: head, window: window)
        let text = String(decoding: expected, as: UTF8.self)
        #expect(text.contains("\"Span 0\"") && !text.contains("\"condition 1\""))
        for entries in [1, 3, 2_000] {
            let stream = TimelineStream(store: store, head: head, window: window, entriesPerPart: entries, chunkBytes: 512)
            let (bytes, _) = try await Self.streamed(stream)
            #expect(bytes == expected, "parts of \(entries): \(bytes.count) bytes against \(expected.count)")
        }
    }

    @Test("a record that changes while its page is written stops the page: never two states in one")
    func changedMidway() async throws {
        let dir = TemporaryDirectory()
        let (store, _) = try TestStore.create(at: dir.file("state"))
        defer { store.close() }
        let patientID = try await Self.filled(store)
        let head = try #require(try await store.timelineHead(patientID: patientID, withEarliest: true))
        let window = TimelineWindow.of(.all, endingAt: 2_000_000_000, earliest: head.earliest, calendar: ServedApp.utc)
        let stream = TimelineStream(store: store, head: head, window: window, entriesPerPart: 10, chunkBytes: 1)
        #expect(try await stream.next() != nil)
        #expect(try await stream.next() != nil)
        _ = try await store.addTimelinePost(patientID: patientID, kind: .levels, dataJSON: #"{"mood":"5"}"#, createdAt: Self.base + 20)
        await #expect(throws: StoreError.self) { _ = try await stream.next() }
    }

    @Test("the export in parts is the export read whole, byte for byte: dated entries, then undated ones")
    func exportSameBytes() async throws {
        let dir = TemporaryDirectory()
        let (store, _) = try TestStore.create(at: dir.file("state"))
        defer { store.close() }
        let patientID = try await Self.filled(store)
        let expected = try #require(try await ExportDocument.encode(patientID: patientID, from: store, exportedAt: 1_700_000_000))
        let text = String(decoding: expected, as: UTF8.self)
        #expect(text.contains("\"undated4\"") && text.contains("note on late0") && text.contains("\"timeline_entries\":[{"))
        for entries in [1, 7, 2_000, 10_000] {
            let stream = ExportStream(store: store, patientID: patientID, exportedAt: 1_700_000_000, entriesPerPart: entries, chunkBytes: 4_096)
            var bytes: [UInt8] = []
            while let chunk = try await stream.next() { bytes += chunk.readableBytesView }
            #expect(bytes == expected, "parts of \(entries): \(bytes.count) bytes against \(expected.count)")
        }
        // A change after the export began cuts it short.
        let stream = ExportStream(store: store, patientID: patientID, exportedAt: 1_700_000_000, entriesPerPart: 10, chunkBytes: 1)
        #expect(try await stream.next() != nil)
        _ = try await store.addTimelinePost(patientID: patientID, kind: .levels, dataJSON: #"{"mood":"5"}"#, createdAt: Self.base + 20)
        await #expect(throws: StoreError.self) { _ = try await stream.next() }
    }

    @Test("over HTTP: the all page of a record at the threshold goes chunked and whole; a shorter page keeps its length")
    func overHTTP() async throws {
        try await ServedApp.with(streamedPageEntries: 1_000) { (served: ServedApp) async throws in
            let patientID = try await Self.filled(served.store)
            let end: Int64 = 2_000_000_000
            let response = try await served.client.send("GET", "/timeline.json?page=all&end=\(end)&patient=\(patientID)")
            #expect(response.status == 200)
            #expect(response.header("Transfer-Encoding") == "chunked" && response.header("Content-Length") == nil)
            #expect(response.header("Content-Type") == "application/json; charset=utf-8")
            #expect(response.header("Cache-Control") == "no-store")
            let head = try #require(try await served.store.timelineHead(patientID: patientID, withEarliest: true))
            let window = TimelineWindow.of(.all, endingAt: end, earliest: head.earliest, calendar: ServedApp.utc)
            #expect(response.body == (try await Self.whole(served.store, head: head, window: window)))

            let month = try await served.client.send("GET", "/timeline.json?page=month&end=2001-09-30&patient=\(patientID)")
            #expect(month.status == 200 && month.header("Content-Length") == String(month.body.count))
            #expect(month.header("Transfer-Encoding") == nil)

            let export = try await served.client.send("GET", "/patients/\(patientID)/export.json")
            #expect(export.status == 200 && export.header("Transfer-Encoding") == "chunked")
            #expect(export.header("Content-Disposition")?.hasPrefix("attachment") == true)
            #expect(export.body == (try await ExportDocument.encode(patientID: patientID, from: served.store, exportedAt: served.clock.now())))
        }
    }
}
