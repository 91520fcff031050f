import Foundation
@testable import ImportJobs
import Records
import RHExSandbox
import HealthRecord
import Store
import TestSupport
import Testing

/// A server's people feed as an offer: a source that imports the chosen patients downloads only those,
/// new patients on the server are offered, and a patient the person removed stays away.
@Suite("patients a server offers")
struct OfferedPatientsTests {
    @Test("chosen only: the first sync offers and imports nothing; chosen ones import; a new server patient is offered; a removed one stays away")
    func chosen() async throws {
        try await SyncHarness.with(records: Fixtures.records(4)) { harness in
            var source = harness.passwordSource()
            source.settings.importAll = false
            _ = try await harness.store.addSource(source, replacing: true)
            let sourceID = try await harness.source.id

            let first = try await harness.sync()
            #expect(first.state == .done && first.counts.patientsAdded == 0)
            #expect(harness.sandbox.stats.recordsServed.isEmpty)
            let offered = try await harness.store.offeredPatients(sourceID: sourceID)
            #expect(offered.map(\.recordID).sorted() == ["1", "2", "3", "4"])
            #expect(offered.allSatisfy { !$0.chosen && !$0.imported })

            _ = try await harness.store.chooseOfferedPatients(sourceID: sourceID, recordIDs: ["2", "4"], chosen: true)
            let second = try await harness.sync()
            #expect(second.counts.patientsAdded == 2)
            #expect(Set(try await harness.patients().keys) == ["2", "4"])

            harness.sandbox.setRecord(Fixtures.records(5)[4])
            _ = try await harness.sync()
            let now = try await harness.store.offeredPatients(sourceID: sourceID)
            #expect(now.first { $0.recordID == "5" }.map { !$0.chosen && !$0.imported } == true)
            #expect(Set(try await harness.patients().keys) == ["2", "4"])

            let removed = try #require(try await harness.patients()["2"])
            #expect(try await harness.store.removePatient(id: removed.id))
            _ = try await harness.sync()
            #expect(Set(try await harness.patients().keys) == ["4"])
            #expect(try await harness.store.offeredPatients(sourceID: sourceID).first { $0.recordID == "2" }?.removed == true)

            // Choosing it again is the person's say: it comes back.
            _ = try await harness.store.chooseOfferedPatients(sourceID: sourceID, recordIDs: ["2"], chosen: true)
            _ = try await harness.sync()
            #expect(Set(try await harness.patients().keys) == ["2", "4"])
        }
    }

    @Test("import all (and a source from before the choice): every patient, except one the person removed")
    func all() async throws {
        try await SyncHarness.with(records: Fixtures.records(3)) { harness in
            #expect(try await harness.source.settings.importsAll)
            #expect(try await harness.sync().counts.patientsAdded == 3)
            let removed = try #require(try await harness.patients()["1"])
            #expect(try await harness.store.removePatient(id: removed.id))
            let again = try await harness.sync()
            #expect(again.state == .done)
            #expect(Set(try await harness.patients().keys) == ["2", "3"])
        }
    }
}

/// What the person wrote on their record outlives the server's changes to it.
@Suite("annotations through RHEx syncs")
struct AnnotationSyncTests {
    @Test("a note and a strike-through survive a sync that changes the record; an entry the server drops keeps its note, orphaned")
    func survive() async throws {
        try await SyncHarness.with(records: Fixtures.records(1, entries: 12)) { harness in
            #expect(try await harness.sync().counts.patientsAdded == 1)
            let patient = try #require(try await harness.patients()["1"])
            let entries = try await harness.store.annotations(patientID: patient.id)
            #expect(entries.isEmpty)
            let ids = Array(try await harness.entries(of: "1").keys).sorted()
            let (kept, dropped) = (ids[0], ids[1])
            for (id, annotation) in [(kept, Annotation(entryID: kept, note: "asked the nurse", struck: true, reason: "not mine")),
                                     (dropped, Annotation(entryID: dropped, note: "remember this"))] {
                guard case .success = try await harness.store.setAnnotation(annotation, patientID: patient.id) else {
                    Issue.record("could not annotate \(id)")
                    return
                }
            }
            // The server's record changes: one entry gone, the others rewritten with new values.
            let original = try #require(harness.sandbox.record(id: "1"))
            var object = try #require(try JSONSerialization.jsonObject(with: Data(original.bytes)) as? [String: Any])
            var removedOne = false
            for section in ["results", "vital_signs", "encounters", "conditions", "medications", "procedures", "immunizations", "allergies"] {
                guard var list = object[section] as? [[String: Any]], !list.isEmpty else { continue }
                if !removedOne, let index = list.firstIndex(where: { entryID(section, $0, patient: patient) == dropped }) {
                    list.remove(at: index)
                    removedOne = true
                }
                object[section] = list.map { entry in var e = entry; e["comment"] = "changed"; return e }
            }
            #expect(removedOne)
            harness.sandbox.setRecord(SandboxRecord(id: "1", bytes: Array(try JSONSerialization.data(withJSONObject: object))))
            let second = try await harness.sync()
            #expect(second.counts.patientsUpdated == 1 && second.counts.entriesRemoved == 1)
            let after = try await harness.store.annotations(patientID: patient.id)
            #expect(after.map(\.entryID).sorted() == [kept, dropped].sorted())
            #expect(after.first { $0.entryID == kept }.map { $0.struck && !$0.orphaned && $0.note == "asked the nurse" } == true)
            #expect(after.first { $0.entryID == dropped }.map { $0.orphaned && $0.note == "remember this" } == true)
        }
    }

    /// The id the RHEx reader gives an entry with this `_id` in this section (the records carry `_id`s).
    private func entryID(_ section: String, _ entry: [String: Any], patient: Patient) -> String? {
        guard let id = entry["_id"] as? String else { return nil }
        return StableID.make("e", [section, id])
    }
}
