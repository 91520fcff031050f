import Foundation
import HealthRecord
import HTTPKit
import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// `GET /patients/{pid}/ips.json` and `ccda.xml`: the person as the timeline shows them (linked parts as
/// one, each fact once, struck entries left out, notes and readings in), `?sections=` and `?since=`, errors.
@Suite("sharing with a doctor")
struct ShareRouteTests {
    static let clinic = LinkTests.clinic
    static let hospital = LinkTests.hospital

    static func resources(_ object: [String: Any], _ type: String) -> [[String: Any]] {
        (object["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }.filter { $0["resourceType"] as? String == type }
    }

    @Test("a linked person: one Patient, the fact both sources hold once, the struck one left out and counted, a note, a reading")
    func linkedPerson() async throws {
        try await ServedApp.with(records: [Self.clinic]) { served in
            _ = try await served.store.addSource(Store.NewSource(name: "hospital", url: "http://127.0.0.1:1/", settings: SourceSettings(clientID: "c"),
                                                                 secrets: SourceSecrets(clientSecret: "s")))
            let b = try served.store.importRecordSync(Self.hospital, sourceName: "hospital").patientID
            let a = LinkTests.id(Self.clinic)
            #expect(try await LinkTests.link(served, a, b).status == 201)
            let json = ["Content-Type": "application/json"]
            #expect(try await served.client.send("PUT", "/patients/\(a)/entries/c1/annotation", headers: json,
                                                 body: Array(#"{"struck": true}"#.utf8)).status == 200)
            #expect(try await served.client.send("PUT", "/patients/\(b)/entries/h-s/annotation", headers: json,
                                                 body: Array(#"{"note": "fasting <b>"}"#.utf8)).status == 200)
            #expect(try await served.client.send("POST", "/patients/\(a)/readings", headers: json,
                                                 body: Array(#"{"kind": "pulse", "value": 64, "date": "2010-12-30"}"#.utf8)).status == 201)

            let response = try await served.client.get("/patients/\(b)/ips.json")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/fhir+json; charset=utf-8")
            #expect(response.header("Content-Disposition")?.contains(".ips.json") == true)
            let bundle = response.object
            #expect(Self.resources(bundle, "Patient").count == 1)
            let observations = Self.resources(bundle, "Observation")
            let names = observations.compactMap { ($0["code"] as? [String: Any])?["text"] as? String }
            // Potassium once (both sources), sodium (noted), the weight once, the pulse reading; creatinine struck.
            #expect(names.filter { $0 == "k1" || $0 == "h-k" }.count == 1)
            #expect(!names.contains("c1"))
            #expect(names.contains("h-s"))
            let sodium = observations.first { ($0["code"] as? [String: Any])?["text"] as? String == "h-s" }
            #expect((sodium?["note"] as? [[String: Any]])?.first?["text"] as? String == "fasting <b>")
            #expect(observations.filter { $0["performer"] != nil }.count == 1)
            let composition = try #require(Self.resources(bundle, "Composition").first)
            let sections = try #require(composition["section"] as? [[String: Any]])
            let results = sections.first { ($0["title"] as? String) == "Results" }
            #expect(((results?["text"] as? [String: Any])?["div"] as? String)?.contains("1 entry the person marked as wrong is left out.") == true)

            let ccd = try await served.client.get("/patients/\(a)/ccda.xml")
            #expect(ccd.status == 200 && ccd.header("Content-Type") == "application/xml; charset=utf-8")
            #expect(ccd.text.contains("fasting &lt;b&gt;") && !ccd.text.contains("fasting <b>"))
            #expect(ccd.text.contains(#"extension="h-s""#) && !ccd.text.contains(#"extension="c1""#))
            // Each is an export in the audit trail, as export.json is.
            #expect(AuditMiddleware.action(.GET, ["patients", a, "ips.json"], response: HTTPKit.Response())?.0 == .export)
            #expect(AuditMiddleware.action(.GET, ["patients", a, "ccda.xml"], response: HTTPKit.Response())?.0 == .export)
        }
    }

    @Test("an entry's source goes with it: an allergy's reaction from its FHIR source in the IPS and the CCD's narrative")
    func allergyReactionFromSource() async throws {
        try await ServedApp.with(records: [SummaryRouteTests.record()]) { served in
            let id = SummaryRouteTests.patientID
            let bundle = try await served.client.get("/patients/\(id)/ips.json").object
            let allergy = try #require(Self.resources(bundle, "AllergyIntolerance").first)
            let reaction = (allergy["reaction"] as? [[String: Any]])?.first
            let manifestation = (reaction?["manifestation"] as? [[String: Any]])?.first
            #expect(manifestation?["text"] as? String == "Hives", "\(allergy)")
            let ccd = try await served.client.get("/patients/\(id)/ccda.xml")
            #expect(ccd.status == 200)
            #expect(ccd.text.contains("Hives"))
        }
    }

    @Test("a death one linked part records is the person's: deceasedDateTime in the IPS, sdtc:deceasedTime in the CCD")
    func deceasedLinkedPart() async throws {
        try await ServedApp.with(records: [Self.clinic]) { served in
            _ = try await served.store.addSource(Store.NewSource(name: "hospital", url: "http://127.0.0.1:1/", settings: SourceSettings(clientID: "c"),
                                                                 secrets: SourceSecrets(clientSecret: "s")))
            var hospital = Self.hospital
            (hospital.deceased, hospital.deceasedDate) = (true, 1_300_000_000)
            let b = try served.store.importRecordSync(hospital, sourceName: "hospital").patientID
            let a = LinkTests.id(Self.clinic)
            #expect(try await LinkTests.link(served, a, b).status == 201)
            for pid in [a, b] {
                let patient = try #require(Self.resources(try await served.client.get("/patients/\(pid)/ips.json").object, "Patient").first)
                #expect(patient["deceasedDateTime"] as? String == "2011-03-13T07:06:40Z", "\(patient)")
                let ccd = try await served.client.get("/patients/\(pid)/ccda.xml").text
                #expect(ccd.contains(#"<sdtc:deceasedInd value="true"/>"#) && ccd.contains(#"<sdtc:deceasedTime value="20110313070640"#))
            }
        }
    }

    @Test("?sections= chooses beside the required three, ?since= limits results; an unknown section, a bad since, an unknown patient: 400, 400, 404")
    func queries() async throws {
        try await ServedApp.with(records: [Self.clinic]) { served in
            let a = LinkTests.id(Self.clinic)
            let chosen = try await served.client.get("/patients/\(a)/ips.json?sections=results&since=1293050000").object
            let composition = try #require(Self.resources(chosen, "Composition").first)
            let titles = (composition["section"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
            #expect(titles == ["Problems", "Allergies and intolerances", "Medications", "Results"])
            // k1 (1_293_000_000) is before since; c1 is not.
            #expect(Self.resources(chosen, "Observation").compactMap { ($0["code"] as? [String: Any])?["text"] as? String } == ["c1"])

            let unknown = try await served.client.get("/patients/\(a)/ips.json?sections=results,gossip")
            #expect(unknown.status == 400 && unknown.errorCode == "bad_sections")
            #expect((unknown.object["error"] as? [String: Any])?["message"] as? String == "There is no section gossip; the sections are "
                    + "problems, allergies, medications, immunizations, results, vital-signs, procedures, devices, past-illness, plan-of-care.")
            #expect(try await served.client.get("/patients/\(a)/ccda.xml?since=yesterday").errorCode == "bad_since")
            #expect(try await served.client.get("/patients/p_nobody/ips.json").status == 404)
            #expect(try await served.client.get("/patients/p_nobody/ccda.xml").status == 404)
        }
    }
}
