import Foundation
import HealthRecord
import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// One person from many sources: linked patients give one timeline (the union, each fact once, both
/// sources named), unlinking gives both back exactly.
@Suite("linking patients")
struct LinkTests {
    static let end: Int64 = 1_293_926_399 // 2011-01-01T23:59:59Z

    static let clinic = PatientRecord.record("clinic-1", name: "Ada Lovelace", birthdate: -4_861_684_800, entries: [
        .entry(.result, "k1", id: "k1", at: 1_293_000_000, value: 4.1, codes: ["LOINC": ["2823-3"]]),   // potassium, also at the hospital
        .entry(.result, "c1", id: "c1", at: 1_293_100_000, value: 0.9, codes: ["LOINC": ["2160-0"]]),   // creatinine, clinic only
        .entry(.vitalSign, "w1", id: "w1", at: 1_293_200_000, value: 60, codes: ["LOINC": ["29463-7"]]),
    ])
    static let hospital = PatientRecord.record("hospital-9", name: "LOVELACE ADA", birthdate: -4_861_684_800, entries: [
        .entry(.result, "h-k", id: "h-k", at: 1_293_000_000, value: 4.1, codes: ["LOINC": ["2823-3"]]),  // the same potassium
        .entry(.result, "h-s", id: "h-s", at: 1_293_050_000, value: 140, codes: ["LOINC": ["2951-2"]]),  // sodium, hospital only
        .entry(.vitalSign, "h-w", id: "h-w", at: 1_293_200_000, value: 60, codes: ["LOINC": ["29463-7"]]), // the same weight reading
    ])
    static let other = PatientRecord.record("other", name: "Someone Else", birthdate: 0, entries: [
        .entry(.result, "o1", id: "o1", at: 1_293_000_000, codes: ["LOINC": ["1"]]),
    ])

    static func id(_ record: PatientRecord) -> String { Patient.id(sourceName: "files", recordID: record.recordID) }

    static func page(_ served: ServedApp, _ patient: String) async throws -> [String: Any] {
        try await served.client.get("/timeline.json?page=year&end=\(end)&patient=\(patient)").object
    }

    static func link(_ served: ServedApp, _ into: String, _ other: String) async throws -> HTTPTestClient.Response {
        try await served.client.post("/patients/\(into)/links", json: #"{"patient":"\#(other)"}"#)
    }

    @Test("suggested by name and birth date; linked, either id shows the union with each fact once and both sources; unlinked, both as before")
    func linkAndUnlink() async throws {
        try await ServedApp.with(records: [Self.clinic, Self.other]) { served in
            // The hospital's record comes from a source of its own.
            _ = try await served.store.addSource(Store.NewSource(name: "hospital", url: "http://127.0.0.1:1/", settings: SourceSettings(clientID: "c"),
                                                                 secrets: SourceSecrets(clientSecret: "s")))
            let b = try served.store.importRecordSync(Self.hospital, sourceName: "hospital").patientID
            let a = Self.id(Self.clinic)
            let before = (try await Self.page(served, a), try await Self.page(served, b))
            let suggestions = try await served.client.get("/patients/\(a)/links.json").object["suggestions"] as? [[String: Any]]
            #expect(suggestions?.map { $0["id"] as? String } == [b])

            let linked = try await Self.link(served, a, b)
            #expect(linked.status == 201)
            #expect((linked.object["patients"] as? [[String: Any]])?.map { $0["id"] as? String } == [a, b])
            for id in [a, b] {
                let page = try await Self.page(served, id)
                let results = try #require(page["results"] as? [[String: Any]])
                // The potassium both hold is shown once (the first by id), naming both sources.
                #expect(results.map { $0["id"] as? String } == ["h-k", "h-s", "c1"])
                #expect(results[0]["sources"] as? [String] == ["hospital", "files"])
                #expect(results[1]["sources"] == nil)
                let weights = (page["vitals"] as? [[String: Any]])?.first
                #expect(weights?["values"] as? [Double] == [60])
                #expect((page["patient"] as? [String: Any])?["id"] as? String == a)
            }
            let list = try #require(try await served.client.get("/patients.json").object["patients"] as? [[String: Any]])
            #expect(list.filter { $0["person"] as? String == a }.count == 2)
            let export = try await served.client.get("/patients/\(b)/export.json").object
            #expect((export["records"] as? [[String: Any]])?.count == 2 && export["person"] as? String == a)

            #expect(try await served.client.send("DELETE", "/patients/\(a)/links/\(b)").status == 200)
            #expect(NSDictionary(dictionary: try await Self.page(served, a)) == NSDictionary(dictionary: before.0))
            #expect(NSDictionary(dictionary: try await Self.page(served, b)) == NSDictionary(dictionary: before.1))
        }
    }

    @Test("unlinked, a patient whose own revision reaches the sum the person had is never shown the person's cached page")
    func unlinkedRevisionMeetsTheSum() async throws {
        try await ServedApp.with(records: [Self.clinic, Self.hospital]) { served in
            let (a, b) = (Self.id(Self.clinic), Self.id(Self.hospital))
            #expect(try await Self.link(served, a, b).status == 201)
            func revision(_ id: String) throws -> Int64 { try served.store.patientsSync().first { $0.id == id }?.revision ?? -1 }
            let personRevision = try revision(a) + revision(b)
            let linked = try await Self.page(served, a)  // cached under the person's revision, the sum
            #expect((linked["results"] as? [[String: Any]])?.contains { $0["id"] as? String == "h-s" } == true)
            #expect(try await served.client.send("DELETE", "/patients/\(a)/links/\(b)").status == 200)
            // Each post changes the patient's revision (and lands far after the page's window).
            while try revision(a) < personRevision {
                #expect(try await served.client.post("/timeline.json?key=levels&patient=\(a)", json: #"{"pain":"3"}"#).status == 201)
            }
            #expect(try revision(a) == personRevision)
            let own = try await Self.page(served, a)
            #expect((own["results"] as? [[String: Any]])?.map { $0["id"] as? String } == ["k1", "c1"])
        }
    }

    @Test("linking a patient to itself, or twice (a cycle), or an unknown one: 400 or 404, nothing changed")
    func refused() async throws {
        try await ServedApp.with(records: [Self.clinic, Self.hospital]) { (served: ServedApp) async throws in
            let (a, b) = (Self.id(Self.clinic), Self.id(Self.hospital))
            #expect(try await Self.link(served, a, a).errorCode == "same_person")
            #expect(try await Self.link(served, a, "p_nobody").status == 404)
            #expect(try await Self.link(served, a, b).status == 201)
            #expect(try await Self.link(served, b, a).errorCode == "same_person")
            #expect(try await served.client.send("DELETE", "/patients/\(a)/links/p_nobody").status == 404)
            #expect(try await served.store.person(of: b)?.members == [a, b])
        }
    }

    @Test("an annotation made on the linked timeline goes to the patient whose entry it is")
    func annotateLinked() async throws {
        try await ServedApp.with(records: [Self.clinic, Self.hospital]) { served in
            let (a, b) = (Self.id(Self.clinic), Self.id(Self.hospital))
            #expect(try await Self.link(served, a, b).status == 201)
            let put = try await served.client.send("PUT", "/patients/\(a)/entries/h-s/annotation", headers: ["Content-Type": "application/json"],
                                                   body: Array(#"{"note":"hospital stay"}"#.utf8))
            #expect(put.status == 200)
            // A note on the clinic's potassium stays in view: the fact both hold is shown as the annotated one.
            #expect(try await served.client.send("PUT", "/patients/\(a)/entries/k1/annotation", headers: ["Content-Type": "application/json"],
                                                 body: Array(#"{"note":"fasting"}"#.utf8)).status == 200)
            let potassium = try #require(try await Self.page(served, b)["results"] as? [[String: Any]]).first { ($0["codes"] as? [String: Any])?["LOINC"] as? [String] == ["2823-3"] }
            #expect(potassium?["id"] as? String == "k1")
            #expect((potassium?["annotation"] as? [String: Any])?["note"] as? String == "fasting")
            #expect(try served.store.annotationsSync(patientID: b).map(\.entryID) == ["h-s"])
            let results = try #require(try await Self.page(served, a)["results"] as? [[String: Any]])
            #expect((results.first { $0["id"] as? String == "h-s" }?["annotation"] as? [String: Any])?["note"] as? String == "hospital stay")
        }
    }
}
