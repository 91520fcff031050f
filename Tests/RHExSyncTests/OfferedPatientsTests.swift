import Foundation
@testable import ImportJobs
import Records
import RHExSandbox
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
