import Foundation
import Testing
import TimelineAPI
import HealthRecord
@testable import Store

@Suite("Record import into the store")
struct RecordImportTests {
    @Test("a second import of the same record changes nothing and keeps every id")
    func reimportIsUnchanged() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        let first = try store.importRecordSync(.record(entries: .numbered(5)))
        #expect(first.patient == .added)
        #expect(first.entriesAdded == 5)
        let revision = try store.patientsSync()[0].revision
        let second = try store.importRecordSync(.record(entries: .numbered(5)))
        #expect(second.patient == .unchanged)
        #expect(second.entriesUnchanged == 5)
        #expect(second.entriesAdded + second.entriesUpdated + second.entriesRemoved == 0)
        #expect(try store.patientsSync()[0].revision == revision)
    }

    @Test("a changed record updates in place, adds new entries and removes what the source dropped")
    func changedRecord() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        _ = try store.importRecordSync(.record(entries: .numbered(4)))
        var changed = PatientRecord.record(entries: .numbered(4))
        changed.entries[1].value = 42
        changed.entries.remove(at: 3)
        changed.entries.append(.entry(.procedure, "New", id: "e_new", at: 5))
        let summary = try store.importRecordSync(changed)
        #expect(summary.patient == .updated)
        #expect(summary.entriesUpdated == 1)
        #expect(summary.entriesAdded == 1)
        #expect(summary.entriesRemoved == 1)
        #expect(summary.entriesUnchanged == 2)
        let patient = try store.patientsSync()[0]
        #expect(patient.entryCount == 4)
        let stored = try store.entriesSync(patientID: patient.id, from: Int64.min, to: Int64.max)
        #expect(Set(stored.map(\.id)) == ["e_0", "e_1", "e_2", "e_new"])
        #expect(stored.first { $0.id == "e_1" }?.value == 42)
    }

    @Test("a record that fails to store changes nothing of the patient")
    func failedImportIsRolledBack() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        _ = try store.importRecordSync(.record(entries: .numbered(3)))
        var broken = PatientRecord.record(entries: .numbered(3))
        broken.name = "Renamed"
        broken.entries.append(broken.entries[0]) // a duplicate id: refused half-way through
        #expect(throws: StoreError.self) { try store.importRecordSync(broken) }
        let patient = try store.patientsSync()[0]
        #expect(patient.name == "Test Patient")
        #expect(patient.entryCount == 3)
    }

    @Test("the same record id from two sources is two patients; the same source and id is one")
    func identity() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        try store.writeSync { db in try db.execute("INSERT INTO sources (name, kind, created_at) VALUES ('clinic', 'rhex', 0)") }
        _ = try store.importRecordSync(.record("42", entries: .numbered(3)))
        _ = try store.importRecordSync(.record("42", entries: .numbered(3)), sourceName: "clinic")
        _ = try store.importRecordSync(.record("43", entries: .numbered(3)))
        #expect(try store.patientsSync().count == 3)
        #expect(Patient.id(sourceName: "files", recordID: "42") != Patient.id(sourceName: "clinic", recordID: "42"))
    }

    @Test("an unknown source is refused")
    func unknownSource() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        #expect(throws: StoreError.self) { try store.importRecordSync(.record(entries: .numbered(3)), sourceName: "nope") }
        #expect(try store.patientsSync().isEmpty)
    }

    @Test("each entry is stored with its timeline JSON, rewritten when the entry changes")
    func storedTimelineJSON() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        let summary = try store.importRecordSync(.record(entries: .numbered(4, marker: "first")))
        func stored() throws -> [String: String] {
            try store.readSync { db in
                Dictionary(uniqueKeysWithValues: try db.rows("SELECT id, timeline_json FROM entries") { ($0.string(0), $0.string(1)) })
            }
        }
        let entries = try store.entriesSync(patientID: summary.patientID, from: 0, to: 10_000_000)
        #expect(entries.count == 4)
        let json = try stored()
        for entry in entries {
            #expect(json[entry.id] == String(decoding: TimelineEntryJSON().encode(entry), as: UTF8.self))
        }
        _ = try store.importRecordSync(.record(entries: .numbered(4, marker: "second")))
        let after = try stored()
        #expect(after.values.allSatisfy { $0.contains("second") && !$0.contains("first") })

        // A vital sign has none: the timeline groups vital signs from their columns.
        var record = PatientRecord.record("with-vitals", entries: .numbered(1))
        record.entries.append(.entry(.vitalSign, "Heart Rate", id: "v_1", at: 1_000_000, value: 72, units: "/min"))
        _ = try store.importRecordSync(record)
        let vital = try store.readSync { db in try db.row("SELECT timeline_json IS NULL FROM entries WHERE id = 'v_1'", []) { $0.int64(0) } }
        #expect(vital == 1)
    }
}
