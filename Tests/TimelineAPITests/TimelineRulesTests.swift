import Foundation
import Records
import HealthRecord
import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// One test per rule of the timeline contract (docs/api.md, "The timeline"), over small records made for the rule.
@Suite("Timeline contract rules")
struct TimelineRulesTests {
    static let end: Int64 = 1_293_926_399 // 2011-01-01T23:59:59Z; a day page starts at 1_293_839_999

    @Test("/patients.json gives each patient's first and last entry dates and the server's closed statuses")
    func patientSpansAndClosedStatuses() async throws {
        let record = PatientRecord.record("rule", entries: [
            .entry(.result, "first", at: 1_000), .entry(.result, "spans", start: 500, end: 90_000), .entry(.result, "last", at: 80_000),
        ])
        let empty = PatientRecord.record("empty")
        try await ServedApp.with(records: [record, empty]) { served in
            let list = try await served.client.get("/patients.json").object
            let patients = try #require(list["patients"] as? [[String: Any]])
            let rule = try #require(patients.first { $0["id"] as? String == Patient.id(sourceName: "files", recordID: "rule") })
            // An entry's date is the first of its time, start and end: "spans" is dated 500.
            #expect(rule["earliest"] as? Int == 500)
            #expect(rule["latest"] as? Int == 80_000)
            let none = try #require(patients.first { $0["id"] as? String == Patient.id(sourceName: "files", recordID: "empty") })
            #expect(none["earliest"] is NSNull && none["latest"] is NSNull)
            #expect(list["closed_statuses"] as? [String] == Entry.closedStatuses.sorted())
        }
    }

    @Test("bounds are inclusive: an entry at the first and the last second is in, one second outside is not")
    func inclusionBounds() async throws {
        let start: Int64 = 1_293_839_999
        let record = PatientRecord.record("rule", entries: [
            .entry(.result, "before", at: start - 1), .entry(.result, "first", at: start),
            .entry(.result, "last", at: Self.end), .entry(.result, "after", at: Self.end + 1),
            .entry(.result, "endsInside", start: start - 500, end: start + 5),
            .entry(.result, "startsInside", start: Self.end - 5, end: Self.end + 500),
        ])
        try await ServedApp.with(records: [record]) { served in
            let json = try await served.client.get("/timeline.json?page=day&end=2011-01-01").object
            let ids = (json["results"] as? [[String: Any]])?.compactMap { $0["description"] as? String } ?? []
            #expect(Set(ids) == ["first", "last", "endsInside", "startsInside"])
        }
    }

    @Test("an empty entry type has no array at all, while vitals, ongoing and the post arrays are always there")
    func missingArrays() async throws {
        try await ServedApp.with(records: [.record("rule", entries: [.entry(.result, "r", at: Self.end)])]) { served in
            let json = try await served.client.get("/timeline.json?page=day&end=2011-01-01").object
            #expect(json["results"] != nil)
            #expect(json["conditions"] == nil)
            #expect(json["medications"] == nil)
            #expect((json["vitals"] as? [Any])?.isEmpty == true)
            #expect((json["ongoing"] as? [Any])?.isEmpty == true)
            #expect((json["levels"] as? [String: Any])?.isEmpty == true)
            #expect(json["timeline_medications"] != nil && json["regimens"] != nil && json["timeline_entries"] != nil)
        }
    }

    @Test("an empty scalar is null, not 0; a non-numeric scalar is null with its text beside it")
    func scalars() async throws {
        let document = #"""
            {"_id": "scalars", "first": "S", "last": "T", "results": [
              {"_id": "a", "description": "Empty", "time": 1293900000, "value": {"scalar": "", "units": "mg"}},
              {"_id": "b", "description": "Positive", "time": 1293900001, "value": {"scalar": "Positive", "units": null}},
              {"_id": "c", "description": "Numeric", "time": 1293900002, "value": {"scalar": "118.0", "units": "mm[Hg]"}}
            ]}
            """#
        let record = try RecordParser().parse(Array(document.utf8))
        try await ServedApp.with(records: [record]) { served in
            let results = try #require(try await served.client.get("/timeline.json?page=day&end=2011-01-01").object["results"] as? [[String: Any]])
            let byName = Dictionary(uniqueKeysWithValues: results.map { ($0["description"] as! String, $0["measurement"] as! [String: Any]) })
            #expect(byName["Empty"]?["value"] is NSNull)
            #expect(byName["Empty"]?["text"] == nil)
            #expect(byName["Positive"]?["value"] is NSNull)
            #expect(byName["Positive"]?["text"] as? String == "Positive")
            #expect((byName["Numeric"]?["value"] as? NSNumber)?.doubleValue == 118)
        }
    }

    @Test("blood-pressure groups come after the others, systolic before diastolic")
    func bloodPressureOrder() async throws {
        let at = Self.end - 10
        let record = PatientRecord.record("rule", entries: [
            .entry(.vitalSign, "Diastolic Blood Pressure", id: "1", at: at, value: 80, units: "u"),
            .entry(.vitalSign, "Weight", id: "2", at: at, value: 70, units: "u"),
            .entry(.vitalSign, "Systolic Blood Pressure", id: "3", at: at, value: 120, units: "u"),
            .entry(.vitalSign, "BMI", id: "4", at: at, value: 22, units: "u"),
            .entry(.vitalSign, "Pulse", id: "5", at: at, value: 60, units: "u"),
        ])
        try await ServedApp.with(records: [record]) { served in
            let vitals = try #require(try await served.client.get("/timeline.json?page=day&end=2011-01-01").object["vitals"] as? [[String: Any]])
            #expect(vitals.compactMap { $0["description"] as? String } == ["BMI", "Pulse", "Weight", "Systolic Blood Pressure", "Diastolic Blood Pressure"])
        }
    }

    @Test("ongoing holds what spans the window and is not closed; nothing in the window, closed or ended is there")
    func ongoing() async throws {
        let before = Self.end - 400 * 86_400
        let record = PatientRecord.record("rule", entries: [
            .entry(.condition, "chronic", id: "chronic", start: before),
            .entry(.condition, "resolved", id: "resolved", start: before, status: "resolved"),
            .entry(.medication, "ended", id: "ended", start: before, end: before + 10),
            .entry(.medication, "endsLater", id: "endsLater", start: before, end: Self.end + 86_400),
            .entry(.allergy, "allergy", id: "allergy", at: before, status: "active"),
            .entry(.condition, "inWindow", id: "inWindow", start: Self.end - 10),
            .entry(.procedure, "procedure", id: "procedure", start: before),
        ])
        try await ServedApp.with(records: [record]) { served in
            let json = try await served.client.get("/timeline.json?page=day&end=2011-01-01").object
            let ongoing = Set((json["ongoing"] as? [[String: Any]])?.compactMap { $0["description"] as? String } ?? [])
            #expect(ongoing == ["chronic", "endsLater", "allergy"])
            #expect((json["conditions"] as? [[String: Any]])?.compactMap { $0["description"] as? String } == ["inWindow"])
        }
    }

    @Test("posts are selected by the time they were posted and echoed in the original shapes")
    func postsByPostTime() async throws {
        try await ServedApp.with(records: [.record("rule")]) { served in
            served.setNow(1_000_000_000)
            let old = try await served.client.post("/timeline.json?key=Levels", form: "pain=3")
            #expect(old.status == 201)
            served.setNow(Self.end - 60)
            _ = try await served.client.post("/timeline.json?key=Levels", form: "pain=5&mood=5")
            _ = try await served.client.post("/timeline.json?key=levels", json: #"{"pain": 7, "energy": "6"}"#)
            _ = try await served.client.post("/timeline.json?key=NewMedication", form: "description=Ibuprofen+200&select-choice-freq=BID")
            _ = try await served.client.post("/timeline.json?key=MedRegiment", form: "select-choice-by=AD&select-choice-by=ND")
            let json = try await served.client.get("/timeline.json?page=day&end=2011-01-01").object
            #expect(json["levels"] as? [String: [String]] == ["pain": ["5", "7"], "mood": ["5"], "energy": ["6"]])
            #expect(json["timeline_medications"] as? [[String: String]] == [["description": "Ibuprofen 200", "select-choice-freq": "BID"]])
            #expect(json["regimens"] as? [[String: [String]]] == [["select-choice-by": ["AD", "ND"]]])
            #expect((json["timeline_entries"] as? [[String: Any]])?.count == 4)
            let all = try await served.client.get("/timeline.json?page=all&end=2011-01-01").object
            #expect((all["levels"] as? [String: [String]])?["pain"] == ["3", "5", "7"])
            #expect((all["start_date"] as? NSNumber)?.int64Value == 1_000_000_000)
        }
    }

    @Test("a form post decodes + and percent escapes and keeps every value of a repeated field")
    func formDecoding() async throws {
        try await ServedApp.with(records: [.record("rule")]) { served in
            let response = try await served.client.post("/timeline.json?key=NewMedication",
                                                        form: "description=Caf%C3%A9+au+lait%2B&tag=a&tag=b%26c")
            #expect(response.status == 201)
            let data = try #require(response.object["data"] as? [String: Any])
            #expect(data["description"] as? String == "Café au lait+")
            #expect(data["tag"] as? [String] == ["a", "b&c"])
            let location = try #require(response.header("Location"))
            let fetched = try await served.client.get(location)
            #expect(fetched.status == 200)
            #expect(fetched.object["id"] as? String == response.object["id"] as? String)
        }
    }

    @Test("a browser form post is answered 303 back to the timeline page")
    func browserPost() async throws {
        try await ServedApp.with(records: [.record("rule")]) { served in
            let response = try await served.client.post("/timeline.json?key=Levels", form: "pain=2",
                                                        headers: ["Accept": "text/html,application/xhtml+xml,*/*;q=0.8"])
            #expect(response.status == 303)
            #expect(response.header("Location") == "/timeline/")
        }
    }

    @Test("a deleted post is gone from the timeline, and deleting it again is 404")
    func deletePost() async throws {
        try await ServedApp.with(records: [.record("rule")]) { served in
            let created = try await served.client.post("/timeline.json?key=Levels", form: "pain=9")
            let id = try #require(created.object["id"] as? String)
            #expect(try await served.client.send("DELETE", "/timeline/entries/\(id)").status == 204)
            let json = try await served.client.get("/timeline.json?page=day&end=2011-01-01").object
            #expect((json["timeline_entries"] as? [Any])?.isEmpty == true)
            let again = try await served.client.send("DELETE", "/timeline/entries/\(id)")
            #expect(again.status == 404)
            #expect(again.errorCode == "not_found")
        }
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        let name: String, method: String, target: String, contentType: String?, body: String, status: Int, code: String
        var testDescription: String { name }
    }

    static let errorCases: [ErrorCase] = [
        ErrorCase(name: "unknown key", method: "POST", target: "/timeline.json?key=Other", contentType: "application/x-www-form-urlencoded", body: "a=1", status: 400, code: "bad_key"),
        ErrorCase(name: "missing key", method: "POST", target: "/timeline.json", contentType: "application/x-www-form-urlencoded", body: "a=1", status: 400, code: "bad_key"),
        ErrorCase(name: "missing page", method: "GET", target: "/timeline.json", contentType: nil, body: "", status: 400, code: "bad_page"),
        ErrorCase(name: "bad page", method: "GET", target: "/timeline.json?page=century", contentType: nil, body: "", status: 400, code: "bad_page"),
        ErrorCase(name: "bad end", method: "GET", target: "/timeline.json?page=day&end=soon", contentType: nil, body: "", status: 400, code: "bad_end"),
        ErrorCase(name: "unknown patient", method: "GET", target: "/timeline.json?page=day&patient=p_nobody", contentType: nil, body: "", status: 404, code: "unknown_patient"),
        ErrorCase(name: "post for an unknown patient", method: "POST", target: "/timeline.json?key=Levels&patient=p_nobody", contentType: "application/json", body: #"{"pain":1}"#, status: 404, code: "unknown_patient"),
        ErrorCase(name: "wrong content type", method: "POST", target: "/timeline.json?key=Levels", contentType: "text/plain", body: "pain=1", status: 415, code: "unsupported_media_type"),
        ErrorCase(name: "no content type", method: "POST", target: "/timeline.json?key=Levels", contentType: nil, body: "pain=1", status: 415, code: "unsupported_media_type"),
        ErrorCase(name: "nested JSON", method: "POST", target: "/timeline.json?key=Levels", contentType: "application/json", body: #"{"pain":{"a":1}}"#, status: 400, code: "bad_body"),
        ErrorCase(name: "bad percent escape", method: "POST", target: "/timeline.json?key=Levels", contentType: "application/x-www-form-urlencoded", body: "pain=%G1", status: 400, code: "bad_body"),
        ErrorCase(name: "unknown export", method: "GET", target: "/patients/p_nobody/export.json", contentType: nil, body: "", status: 404, code: "unknown_patient"),
        ErrorCase(name: "select an unknown patient", method: "POST", target: "/patients/current", contentType: "application/json", body: #"{"id":"p_nobody"}"#, status: 404, code: "unknown_patient"),
    ]

    @Test("every error has its status, its code and nothing is stored", arguments: errorCases)
    func errors(_ c: ErrorCase) async throws {
        try await ServedApp.with(records: [.record("rule")]) { served in
            var headers: [String: String] = [:]
            if let type = c.contentType { headers["Content-Type"] = type }
            let response = try await served.client.send(c.method, c.target, headers: headers, body: Array(c.body.utf8))
            #expect(response.status == c.status)
            #expect(response.errorCode == c.code)
            #expect((response.object["error"] as? [String: Any])?["message"] is String)
            let json = try await served.client.get("/timeline.json?page=all").object
            #expect((json["timeline_entries"] as? [Any])?.isEmpty == true, "nothing stored")
        }
    }

    @Test("with no patient yet, the timeline and posts answer 409")
    func noPatient() async throws {
        try await ServedApp.with(records: []) { served in
            let get = try await served.client.get("/timeline.json?page=day")
            #expect(get.status == 409)
            #expect(get.errorCode == "no_patient")
            let post = try await served.client.post("/timeline.json?key=Levels", form: "pain=1")
            #expect(post.status == 409)
        }
    }

    @Test("a body one byte over the post limit is 413 and stores nothing; at the limit it is accepted")
    func oversizeBody() async throws {
        var limits = PostLimits()
        limits.maximumBodyBytes = 64
        try await ServedApp.with(records: [.record("rule")], limits: limits) { served in
            let atLimit = "pain=" + String(repeating: "1", count: 59)
            #expect(atLimit.utf8.count == 64)
            limits.maximumValueBytes = 4096
            let ok = try await served.client.post("/timeline.json?key=Levels", form: atLimit)
            #expect(ok.status == 201)
            let over = try await served.client.post("/timeline.json?key=Levels", form: atLimit + "1")
            #expect(over.status == 413)
            #expect(over.errorCode == "body_too_large")
            let json = try await served.client.get("/timeline.json?page=all").object
            #expect((json["timeline_entries"] as? [Any])?.count == 1)
        }
    }

    @Test("patients are listed, one is selected as current, and its export holds every entry with its raw JSON")
    func patientsAndExport() async throws {
        let a = PatientRecord.record("a", name: "Rule Patient", entries: [.entry(.result, "x", at: 5)])
        let b = PatientRecord.record("b", name: "Another Person", entries: [
            .entry(.condition, "d", id: "raw", at: 6, raw: #"{"_id":"raw","extra":[1,2]}"#),
        ])
        try await ServedApp.with(records: [a, b]) { served in
            let list = try await served.client.get("/patients.json").object
            let patients = try #require(list["patients"] as? [[String: Any]])
            #expect(patients.count == 2)
            let idB = try #require(patients.first { $0["name"] as? String == "Another Person" }?["id"] as? String)
            #expect(list["current"] as? String == idB, "the first by name is current until one is chosen")
            let idA = try #require(patients.first { $0["name"] as? String == "Rule Patient" }?["id"] as? String)
            let selected = try await served.client.post("/patients/current", form: "id=\(idA)")
            #expect(selected.status == 200)
            #expect(try await served.client.get("/patients.json").object["current"] as? String == idA)
            let export = try await served.client.get("/patients/\(idB)/export.json")
            #expect(export.status == 200)
            #expect(export.header("Content-Disposition")?.contains("attachment") == true)
            let entries = try #require(export.object["entries"] as? [[String: Any]])
            #expect((entries.first?["raw"] as? [String: Any])?["extra"] as? [Int] == [1, 2])
        }
    }

    @Test("a payload that cannot have changed is served from the cache; a post invalidates it")
    func caching() async throws {
        try await ServedApp.with(records: [.record("rule", entries: [.entry(.result, "r", at: Self.end)])]) { served in
            let first = try await served.client.get("/timeline.json?page=day&end=2011-01-01")
            #expect(served.app.timeline.cache.count == 1)
            let second = try await served.client.get("/timeline.json?page=day&end=2011-01-01")
            #expect(second.body == first.body)
            #expect(served.app.timeline.cache.count == 1)
            served.setNow(Self.end - 5)
            _ = try await served.client.post("/timeline.json?key=Levels", form: "pain=1")
            let third = try await served.client.get("/timeline.json?page=day&end=2011-01-01")
            #expect(third.body != first.body)
            #expect(served.app.timeline.cache.count == 2)
            served.app.lockNow(reason: "test")
            #expect(served.app.timeline.cache.count == 0, "locking drops cached patient data with the key")
        }
    }
}
