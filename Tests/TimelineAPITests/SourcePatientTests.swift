import Foundation
import HealthRecord
import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// `GET /sources/{name}/patients.json` and `POST /sources/{name}/patients`: what a server offers, and
/// the person's choice.
@Suite("patients a source offers, over HTTP")
struct SourcePatientTests {
    @Test("the offer is listed with each record's state; choosing one queues a sync; unknown records and sources are 404")
    func offerAndChoose() async throws {
        try await ServedApp.with { served in
            let source = try await served.store.addSource(Store.NewSource(
                name: "clinic", url: "http://127.0.0.1:1/", settings: SourceSettings(clientID: "c", importAll: false),
                secrets: SourceSecrets(clientSecret: "s")))
            _ = try await served.store.offerPatients(sourceID: source.id, feed: [("r1", "Lee, Ann"), ("r2", "Lee, Bo")], importAll: false)
            let list = try await served.client.get("/sources/clinic/patients.json").object
            #expect(list["import_all"] as? Bool == false)
            #expect((list["patients"] as? [[String: Any]])?.map { $0["state"] as? String } == ["offered", "offered"])

            let chosen = try await served.client.post("/sources/clinic/patients", json: #"{"record_ids":["r2"],"import":true}"#)
            #expect(chosen.status == 202)
            #expect((chosen.object["patients"] as? [[String: Any]])?.first { $0["record_id"] as? String == "r2" }?["state"] as? String == "chosen")
            #expect(try await served.store.importJobs().contains { $0.sourceName == "clinic" && $0.state == .queued })

            #expect(try await served.client.post("/sources/clinic/patients", json: #"{"record_ids":["r9"],"import":true}"#).status == 404)
            #expect(try await served.client.post("/sources/nowhere/patients", json: #"{"import_all":true}"#).status == 404)
            #expect(try await served.client.post("/sources/clinic/patients", json: #"{"import":"yes"}"#).status == 400)
            #expect(try await served.client.get("/sources/files/patients.json").status == 404)
            #expect(try await served.client.post("/sources/clinic/patients", json: #"{"import_all":true}"#).status == 202)
            #expect(try await served.store.source(named: "clinic")?.settings.importsAll == true)
        }
    }
}
