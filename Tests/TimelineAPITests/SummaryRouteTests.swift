import Foundation
import Modules
import Records
import HealthRecord
import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// `GET /patients/{id}/summary.json`, `GET`/`PUT /patients/{id}/modules` and the person's own readings
/// (`POST /patients/{id}/readings`, `PUT`/`DELETE /readings/{id}`), over HTTP, against a real store.
@Suite("summary and readings")
struct SummaryRouteTests {
    /// 2026-11-24T12:00:00Z.
    static let now: Int64 = 1_795_521_600
    static let day: Int64 = 86_400

    static func record(birthdate: Int64 = 0, id: String = "sum") -> PatientRecord {
        PatientRecord.record(id, name: "Sam Mary", gender: "M", birthdate: birthdate, entries: [
            .entry(.vitalSign, "Systolic Blood Pressure", id: "e_sys", at: now - 10 * day, value: 142, units: "mm[Hg]", codes: ["LOINC": ["8480-6"]]),
            .entry(.vitalSign, "Diastolic Blood Pressure", id: "e_dia", at: now - 10 * day, value: 91, units: "mm[Hg]", codes: ["LOINC": ["8462-4"]]),
            .entry(.vitalSign, "Body Weight", id: "e_wt", at: now - 10 * day, value: 80, units: "kg"),
            .entry(.vitalSign, "Body Height", id: "e_ht", at: now - 10 * day, value: 180, units: "cm"),
            .entry(.allergy, "Penicillin", id: "e_all", start: 1_000_000, status: "active",
                   raw: #"{"resourceType":"AllergyIntolerance","reaction":[{"manifestation":[{"text":"Hives"}],"severity":"severe"}]}"#),
            .entry(.condition, "Hypertension", id: "e_cond", start: 1_000_000, status: "active"),
        ])
    }

    static var patientID: String { Patient.id(sourceName: "files", recordID: "sum") }

    static func post(_ served: ServedApp, _ body: String, patient: String = patientID) async throws -> HTTPTestClient.Response {
        try await served.client.send("POST", "/patients/\(patient)/readings", headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }

    static func summary(_ served: ServedApp, patient: String = patientID) async throws -> [String: Any] {
        let response = try await served.client.get("/patients/\(patient)/summary.json")
        #expect(response.status == 200)
        return response.object
    }

    static func module(_ summary: [String: Any], _ id: String) -> [String: Any]? {
        (summary["modules"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    }

    @Test("summary.json: the patient, and each default module in order with its message and tile under the fixed names")
    func summaryShape() async throws {
        try await ServedApp.with(records: [Self.record()], now: Self.now) { served in
            let summary = try await Self.summary(served)
            #expect((summary["patient"] as? [String: Any])?["name"] as? String == "Sam Mary")
            #expect((summary["patient"] as? [String: Any])?["age"] as? Double == 56.8)
            let ids = (summary["modules"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            #expect(ids == ModuleCatalog.standard.defaults(age: 56.8))

            let bp = try #require(Self.module(summary, "blood-pressure"))
            let tile = try #require(bp["tile"] as? [String: Any])
            let latest = try #require(tile["latest"] as? [String: Any])
            #expect(latest["systolic"] as? Int == 142)
            #expect(latest["diastolic"] as? Int == 91)
            #expect(latest["date"] as? Int64 == Self.now - 10 * Self.day)
            #expect(tile["category"] as? String == "stage_2")
            #expect((tile["readings"] as? [[String: Any]])?.count == 1)
            #expect((bp["message"] as? String)?.contains("2017 ACC/AHA") == true)
            #expect(bp["accepts"] as? [String] == ["blood_pressure"])

            let weight = try #require(Self.module(summary, "weight-bmi")?["tile"] as? [String: Any])
            #expect((weight["latest"] as? [String: Any])?["bmi"] as? Double == 24.7)
            #expect((weight["latest"] as? [String: Any])?["height"] as? Int == 180)
            #expect(weight["category"] as? String == "healthy")
            #expect(weight["percentile"] == nil)

            let allergies = (Self.module(summary, "problems-allergies")?["tile"] as? [String: Any])?["allergies"] as? [[String: Any]]
            #expect(allergies?.first?["reaction"] as? String == "Hives")
            #expect(allergies?.first?["severity"] as? String == "severe")
        }
    }

    @Test("a child's weight-bmi tile carries the percentile, one decimal; unknown patient 404")
    func childPercentile() async throws {
        // Born 2016-11-10: 10 years and 0 months (120 completed months) at the weight, 2026-11-14.
        let born: Int64 = 1_478_779_200
        let record = PatientRecord.record("kid", name: "Kid Doe", gender: "M", birthdate: born, entries: [
            .entry(.vitalSign, "Body Height", id: "e_h", at: Self.now - 10 * Self.day, value: 150, units: "cm"),
            .entry(.vitalSign, "Body Weight", id: "e_w", at: Self.now - 10 * Self.day, value: 40.5, units: "kg"),
        ])
        try await ServedApp.with(records: [record], now: Self.now) { served in
            let summary = try await Self.summary(served, patient: Patient.id(sourceName: "files", recordID: "kid"))
            let ids = (summary["modules"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
            #expect(!ids.contains("blood-pressure"))
            let tile = try #require(Self.module(summary, "weight-bmi")?["tile"] as? [String: Any])
            #expect(tile["percentile"] as? Double == 72.1)
            #expect(tile["category"] as? String == "healthy")
            #expect(try await served.client.get("/patients/p_nobody/summary.json").status == 404)
        }
    }

    @Test("modules: read the defaults, set a list and its order, refuse unknown and repeated ids (nothing changes), go back to the defaults")
    func moduleList() async throws {
        try await ServedApp.with(records: [Self.record()], now: Self.now) { served in
            let path = "/patients/\(Self.patientID)/modules"
            func put(_ body: String) async throws -> HTTPTestClient.Response {
                try await served.client.send("PUT", path, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
            }
            let before = try await served.client.get(path).object
            #expect(before["chosen"] as? Bool == false)
            #expect((before["available"] as? [[String: Any]])?.count == ModuleCatalog.standard.modules.count)

            let set = try await put(#"{"modules":["weight-bmi","blood-pressure"]}"#)
            #expect(set.status == 200)
            #expect(set.object["modules"] as? [String] == ["weight-bmi", "blood-pressure"])
            #expect(set.object["chosen"] as? Bool == true)
            let summary = try await Self.summary(served)
            #expect((summary["modules"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["weight-bmi", "blood-pressure"])
            // The printed summary asks for every module, whatever the tiles shown.
            let every = try await served.client.get("/patients/\(Self.patientID)/summary.json?modules=all").object
            #expect((every["modules"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ModuleCatalog.standard.modules.map(\.id))
            #expect(try await served.client.get("/patients/\(Self.patientID)/summary.json?modules=some").status == 400)

            for bad in [#"{"modules":["weight-bmi","nope"]}"#, #"{"modules":["feelings","feelings"]}"#, #"{"modules":"feelings"}"#,
                        #"{"modules":[1]}"#, #"{"shown":[]}"#, "not json"] {
                let response = try await put(bad)
                #expect(response.status == 400, "\(bad)")
            }
            #expect(try await served.client.send("PUT", path, headers: ["Content-Type": "text/plain"], body: Array("x".utf8)).status == 415)
            #expect(try await served.client.get(path).object["modules"] as? [String] == ["weight-bmi", "blood-pressure"])

            let reset = try await put(#"{"modules":null}"#)
            #expect(reset.object["chosen"] as? Bool == false)
            #expect(reset.object["modules"] as? [String] == ModuleCatalog.standard.defaults(age: 56.8))
            #expect(try await put(#"{"modules":[]}"#).object["modules"] as? [String] == [])
            #expect(try await served.client.send("PUT", "/patients/p_nobody/modules", headers: ["Content-Type": "application/json"],
                                                 body: Array(#"{"modules":[]}"#.utf8)).status == 404)
        }
    }

    @Test("a reading: posted, shown in the tile and message, beside the imported ones on the timeline (marked), edited, deleted")
    func readingLifecycle() async throws {
        try await ServedApp.with(records: [Self.record()], now: Self.now) { served in
            let posted = try await Self.post(served, #"{"kind":"blood_pressure","systolic":185,"diastolic":100,"note":"after stairs"}"#)
            #expect(posted.status == 201)
            let reading = try #require(posted.object["reading"] as? [String: Any])
            let id = try #require(reading["id"] as? String)
            #expect(id.hasPrefix("r_"))
            #expect(posted.headers.contains { $0.name == "Location" && $0.value == "/readings/\(id)" })
            #expect(reading["date"] as? Int64 == Self.now)

            let bp = try #require(Self.module(try await Self.summary(served), "blood-pressure"))
            #expect((bp["tile"] as? [String: Any])?["category"] as? String == "severe")
            #expect((bp["message"] as? String)?.contains("Latest 185/100") == true)
            #expect((bp["message"] as? String)?.contains("contact a clinician now") == true)

            let timeline = try await served.client.get("/timeline.json?page=month&patient=\(Self.patientID)").object
            let vitals = try #require(timeline["vitals"] as? [[String: Any]])
            let systolic = try #require(vitals.first { $0["description"] as? String == "Systolic Blood Pressure" })
            #expect(systolic["values"] as? [Int] == [142, 185])
            #expect(systolic["self_reported"] as? [Bool] == [false, true])
            #expect(systolic["ids"] as? [String] == ["e_sys", id])
            #expect((timeline["readings"] as? [[String: Any]])?.first?["note"] as? String == "after stairs")

            // An edit a day later without a date keeps the reading's own.
            served.setNow(Self.now + Self.day)
            let edited = try await served.client.send("PUT", "/readings/\(id)", headers: ["Content-Type": "application/json"],
                                                      body: Array(#"{"kind":"blood_pressure","systolic":118,"diastolic":76}"#.utf8))
            #expect(edited.status == 200)
            #expect((edited.object["reading"] as? [String: Any])?["systolic"] as? Int == 118)
            #expect((edited.object["reading"] as? [String: Any])?["date"] as? Int64 == Self.now)
            #expect((edited.object["reading"] as? [String: Any])?["updated_at"] as? Int64 == Self.now + Self.day)
            #expect((edited.object["reading"] as? [String: Any])?["note"] is NSNull)
            let after = try #require(Self.module(try await Self.summary(served), "blood-pressure")?["tile"] as? [String: Any])
            #expect(after["category"] as? String == "normal")

            #expect(try await served.client.send("DELETE", "/readings/\(id)").status == 204)
            #expect(try await served.client.send("DELETE", "/readings/\(id)").status == 404)
            #expect(try await served.client.get("/readings/\(id)").status == 404)
            let gone = try #require(Self.module(try await Self.summary(served), "blood-pressure")?["tile"] as? [String: Any])
            #expect((gone["latest"] as? [String: Any])?["systolic"] as? Int == 142)
        }
    }

    @Test("bad readings get a 400 that says why, and nothing is stored", arguments: [
        #"{"kind":"blood_pressure","systolic":80,"diastolic":120}"#,
        #"{"kind":"blood_pressure","systolic":301,"diastolic":80}"#,
        #"{"kind":"blood_pressure","value":120}"#,
        #"{"kind":"weight","value":1800,"unit":"lb"}"#,
        #"{"kind":"weight","value":0.4}"#,
        #"{"kind":"weight","value":70,"unit":"stone"}"#,
        #"{"kind":"weight","systolic":70}"#,
        #"{"kind":"weight","value":"70"}"#,
        #"{"kind":"weight","value":70,"context":"fasting"}"#,
        #"{"kind":"glucose","value":100,"context":"lunch"}"#,
        #"{"kind":"temperature","value":37}"#,
        #"{"value":70}"#,
        #"{"kind":"weight","value":70,"date":"yesterday"}"#,
        #"{"kind":"weight","value":70,"date":1895521600}"#,
        #"{"kind":"weight","value":70,"date":-3000000000}"#,
        #"{"kind":"weight","value":70,"colour":"red"}"#,
        #"{"kind":"weight","value":70,"kind":"height"}"#,
        #"{"kind":"weight","value":70,"note":{"a":1}}"#,
        #"[1]"#,
    ])
    func badReadings(body: String) async throws {
        try await ServedApp.with(records: [Self.record()], now: Self.now) { served in
            let response = try await Self.post(served, body)
            #expect(response.status == 400, "\(body): \(response.text)")
            #expect(((response.object["error"] as? [String: Any])?["message"] as? String)?.isEmpty == false)
            #expect(try await served.store.readings(patientID: Self.patientID).isEmpty)
        }
    }

    @Test("reading limits: the note at its byte limit and one over, the body limit, the media type, an unknown patient")
    func readingLimits() async throws {
        try await ServedApp.with(records: [Self.record()], now: Self.now) { served in
            let atLimit = String(repeating: "n", count: ReadingBody.maximumNoteBytes)
            #expect(try await Self.post(served, #"{"kind":"pulse","value":60,"note":"\#(atLimit)"}"#).status == 201)
            #expect(try await Self.post(served, #"{"kind":"pulse","value":60,"note":"\#(atLimit)n"}"#).status == 413)
            let limit = served.app.configuration.readingBodyLimit
            let padded = #"{"kind":"pulse","value":60,"note":""# + String(repeating: " ", count: limit) + "\"}"
            #expect(try await Self.post(served, padded).status == 413)
            #expect(try await served.client.send("POST", "/patients/\(Self.patientID)/readings", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                                 body: Array("kind=pulse&value=60".utf8)).status == 415)
            #expect(try await Self.post(served, #"{"kind":"pulse","value":60}"#, patient: "p_nobody").status == 404)
            #expect(try await served.store.readings(patientID: Self.patientID).count == 1)
            let list = try await served.client.get("/patients/\(Self.patientID)/readings.json").object
            #expect((list["readings"] as? [[String: Any]])?.first?["kind"] as? String == "pulse")
        }
    }

    @Test("a reading survives a re-import of the record, and a removal of every imported entry")
    func survivesReimport() async throws {
        try await ServedApp.with(records: [Self.record()], now: Self.now) { served in
            #expect(try await Self.post(served, #"{"kind":"weight","value":79}"#).status == 201)
            _ = try served.store.importRecordSync(Self.record())
            var emptied = Self.record()
            emptied.entries = []
            _ = try served.store.importRecordSync(emptied)
            let readings = try await served.store.readings(patientID: Self.patientID)
            #expect(readings.map(\.value) == [79])
            let weight = try #require(Self.module(try await Self.summary(served), "weight-bmi")?["tile"] as? [String: Any])
            #expect((weight["latest"] as? [String: Any])?["weight"] as? Int == 79)
            // The export takes them out too.
            let export = try await served.client.get("/patients/\(Self.patientID)/export.json").object
            #expect((export["readings"] as? [[String: Any]])?.map { $0["value"] as? Int } == [79])
        }
    }

    /// A module the standard catalog does not have, given to the app: it appears in summary.json.
    struct EchoModule: SummaryModule {
        let id = "test-echo"
        let name = "Echo"
        let about = "Says how many readings the person took."
        var reads: ModuleReads { ModuleReads(readings: true) }
        func evaluate(_ record: ModuleRecord, shared: SharedValues) -> ModuleOutput {
            ModuleOutput(message: "\(record.readings.count) readings", tile: ["count": .int(Int64(record.readings.count))])
        }
    }

    @Test("a module added to the app's catalog is offered, can be chosen, and answers in summary.json")
    func addedModule() async throws {
        let catalog = ModuleCatalog(ModuleCatalog.standard.modules + [EchoModule()])
        try await ServedApp.with(records: [Self.record()], now: Self.now, modules: catalog) { served in
            #expect(try await Self.post(served, #"{"kind":"pulse","value":61}"#).status == 201)
            let chosen = try await served.client.send("PUT", "/patients/\(Self.patientID)/modules", headers: ["Content-Type": "application/json"],
                                                      body: Array(#"{"modules":["test-echo","feelings"]}"#.utf8))
            #expect(chosen.status == 200)
            let echo = try #require(Self.module(try await Self.summary(served), "test-echo"))
            #expect(echo["message"] as? String == "1 readings")
            #expect((echo["tile"] as? [String: Any])?["count"] as? Int == 1)
        }
    }
}
