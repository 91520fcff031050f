import Foundation
import HealthRecord
import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// The family's say about its people: relationship, order, display name; removing a person.
@Suite("people")
struct PeopleTests {
    static func id(_ record: String, source: String = "files") -> String { Patient.id(sourceName: source, recordID: record) }

    static func patch(_ served: ServedApp, _ patient: String, _ body: String) async throws -> HTTPTestClient.Response {
        try await served.client.send("PATCH", "/patients/\(patient)", headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }

    @Test("relationship, order and display name: set, shown in /patients.json and on the timeline, cleared by null")
    func settings() async throws {
        let records: [PatientRecord] = [.record("a", name: "Alice Source", entries: .numbered(1)), .record("b", name: "Bob Source", entries: .numbered(1))]
        try await ServedApp.with(records: records) { served in
            let response = try await Self.patch(served, Self.id("b"), #"{"relationship":"me","order":1,"display_name":"Dad"}"#)
            #expect(response.status == 200)
            #expect(response.object["name"] as? String == "Dad")
            #expect(try await Self.patch(served, Self.id("a"), #"{"order":2,"relationship":"child"}"#).status == 200)
            let list = try #require(try await served.client.get("/patients.json").object["patients"] as? [[String: Any]])
            #expect(list.map { $0["name"] as? String } == ["Dad", "Alice Source"])
            #expect(list[0]["source_name"] as? String == "Bob Source" && list[0]["relationship"] as? String == "me" && list[0]["order"] as? Int == 1)
            let page = try await served.client.get("/timeline.json?page=year&end=1293926399&patient=\(Self.id("b"))").object
            #expect((page["patient"] as? [String: Any])?["name"] as? String == "Dad")
            #expect(try await Self.patch(served, Self.id("b"), #"{"display_name":null,"order":null}"#).status == 200)
            let again = try #require(try await served.client.get("/patients.json").object["patients"] as? [[String: Any]])
            #expect(again.map { $0["name"] as? String } == ["Alice Source", "Bob Source"])
        }
    }

    @Test("a relationship outside the list, a bad order, an unknown field, an unknown patient: clear errors, nothing changed")
    func refused() async throws {
        try await ServedApp.with(records: [.record("a", name: "Alice", entries: .numbered(1))]) { served in
            #expect(try await Self.patch(served, Self.id("a"), #"{"relationship":"cousin"}"#).errorCode == "bad_relationship")
            #expect(try await Self.patch(served, Self.id("a"), #"{"order":-1}"#).status == 400)
            #expect(try await Self.patch(served, Self.id("a"), #"{"order":1.5}"#).status == 400)
            #expect(try await Self.patch(served, Self.id("a"), #"{"nickname":"x"}"#).status == 400)
            #expect(try await Self.patch(served, Self.id("a"), #"{}"#).status == 400)
            #expect(try await Self.patch(served, "p_nobody", #"{"order":1}"#).status == 404)
            let patient = try #require(try served.store.patientsSync().first)
            #expect(patient.relationship == nil && patient.order == nil && patient.displayName == nil)
        }
    }

    @Test("removing a person takes everything that is theirs; the next one becomes current; a sync does not bring them back")
    func removal() async throws {
        let records: [PatientRecord] = [.record("a", name: "Alice", entries: .numbered(3)), .record("b", name: "Bob", entries: .numbered(1))]
        try await ServedApp.with(records: records) { served in
            let alice = Self.id("a")
            #expect(try await served.client.post("/patients/current", json: #"{"id":"\#(alice)"}"#).status == 200)
            #expect(try await served.client.send("PUT", "/patients/\(alice)/entries/e_0/annotation", headers: ["Content-Type": "application/json"],
                                                 body: Array(#"{"note":"x"}"#.utf8)).status == 200)
            #expect(try await served.client.send("DELETE", "/patients/\(alice)").status == 204)
            #expect(try await served.client.send("DELETE", "/patients/\(alice)").status == 404)
            let list = try await served.client.get("/patients.json").object
            #expect(list["current"] as? String == Self.id("b"))
            #expect((list["patients"] as? [[String: Any]])?.count == 1)
            let leftovers = try served.store.readSync { db in
                try db.scalar("SELECT (SELECT count(*) FROM entries WHERE patient_id = ?1) + (SELECT count(*) FROM annotations WHERE patient_id = ?1)",
                              [alice], as: Int.self)
            }
            #expect(leftovers == 0)

            // From a remote source, the removed record stays away at the next sync; a file the person
            // imports again is their say, and it comes back.
            _ = try await served.store.addSource(Store.NewSource(name: "clinic", url: "http://127.0.0.1:1/", settings: SourceSettings(clientID: "c"),
                                                                 secrets: SourceSecrets(clientSecret: "s")))
            let synced = try served.store.importRecordSync(.record("c", name: "Carol", entries: .numbered(1)), sourceName: "clinic")
            #expect(try await served.client.send("DELETE", "/patients/\(synced.patientID)").status == 204)
            let again = try served.store.importRecordSync(.record("c", name: "Carol", entries: .numbered(1)), sourceName: "clinic")
            #expect(again.skippedAsRemoved)
            #expect(try served.store.patientsSync().map(\.name) == ["Bob"])
            _ = try served.store.importRecordSync(.record("a", name: "Alice", entries: .numbered(3)))
            #expect(try served.store.patientsSync().map(\.name) == ["Alice", "Bob"])
        }
    }

    @Test("a person removed and imported again from another file is shown as they are now, never from a page cached before")
    func removedThenImportedAgain() async throws {
        try await ServedApp.with(records: [.record("a", name: "Alice", entries: .numbered(3, marker: "first"))]) { served in
            let alice = Self.id("a")
            let path = "/timeline.json?page=year&end=3000000&patient=\(alice)"
            let before = try await served.client.get(path)
            #expect(before.status == 200 && before.text.contains("first 1"))
            let revision = try #require(try served.store.patientsSync().first?.revision)
            #expect(try await served.client.send("DELETE", "/patients/\(alice)").status == 204)
            // The same record id, so the same patient id; a new patient's revisions go on above the removed one's.
            _ = try served.store.importRecordSync(.record("a", name: "Alice", entries: .numbered(4, marker: "second")))
            #expect(try #require(try served.store.patientsSync().first?.revision) > revision)
            let after = try await served.client.get(path)
            #expect(after.status == 200 && after.text.contains("second 3") && !after.text.contains("first"))
        }
    }
}
