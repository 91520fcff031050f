import Foundation
import ImportJobs
import Records
import HealthRecord
import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// Annotations: written over HTTP, carried by the timeline's entry objects, kept through re-imports,
/// orphaned (never dropped) when the source removes their entry, refused when they do not fit.
@Suite("annotations")
struct AnnotationTests {
    static let end: Int64 = 1_293_926_399 // 2011-01-01T23:59:59Z

    static let entries: [Entry] = [
        .entry(.condition, "Asthma", id: "e_cond", start: 1_000_000, status: "active"),
        .entry(.medication, "Albuterol", id: "e_med", start: 1_293_800_000, status: "active"),
        .entry(.result, "Potassium", id: "e_res", at: 1_293_900_000, value: 4.1, units: "mmol/L"),
    ]

    static let record = PatientRecord.record("ann", entries: entries)
    static var patientID: String { Patient.id(sourceName: "files", recordID: "ann") }

    static func put(_ served: ServedApp, entry: String, _ body: String, patient: String = patientID) async throws -> HTTPTestClient.Response {
        try await served.client.send("PUT", "/patients/\(patient)/entries/\(entry)/annotation",
                                     headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }

    static func timelineEntries(_ served: ServedApp, page: String = "year") async throws -> [[String: Any]] {
        let object = try await served.client.get("/timeline.json?page=\(page)&end=\(end)&patient=\(patientID)").object
        var all: [[String: Any]] = []
        for key in ["conditions", "medications", "results", "ongoing"] { all += object[key] as? [[String: Any]] ?? [] }
        return all
    }

    @Test("a note, a strike-through and medication details: written, read back, on the timeline's entry objects")
    func writeAndRead() async throws {
        try await ServedApp.with(records: [Self.record]) { served in
            let response = try await Self.put(served, entry: "e_med",
                #"{"note":"Only when wheezing","medication":{"dose":"2 puffs","prescriber":"Dr. Who"}}"#)
            #expect(response.status == 200)
            let annotation = try #require(response.object["annotation"] as? [String: Any])
            #expect(annotation["note"] as? String == "Only when wheezing")
            #expect((annotation["medication"] as? [String: Any])?["dose"] as? String == "2 puffs")
            #expect(try await Self.put(served, entry: "e_cond", #"{"struck":true,"reason":"not mine"}"#).status == 200)

            let entries = try await Self.timelineEntries(served)
            let med = try #require(entries.first { $0["id"] as? String == "e_med" })
            #expect((med["annotation"] as? [String: Any])?["note"] as? String == "Only when wheezing")
            // The condition began years before the window: it is ongoing, and carries its annotation there.
            let cond = try #require(entries.first { $0["id"] as? String == "e_cond" })
            #expect((cond["annotation"] as? [String: Any])?["struck"] as? Bool == true)
            let result = try #require(entries.first { $0["id"] as? String == "e_res" })
            #expect(result["annotation"] == nil)

            let got = try await served.client.get("/patients/\(Self.patientID)/entries/e_cond/annotation")
            #expect((got.object["annotation"] as? [String: Any])?["reason"] as? String == "not mine")
            let list = try await served.client.get("/patients/\(Self.patientID)/annotations.json").object
            #expect((list["annotations"] as? [[String: Any]])?.map { $0["entry_id"] as? String } == ["e_cond", "e_med"])

            #expect(try await served.client.send("DELETE", "/patients/\(Self.patientID)/entries/e_med/annotation").status == 204)
            #expect(try await served.client.get("/patients/\(Self.patientID)/entries/e_med/annotation").status == 404)
            let after = try await Self.timelineEntries(served)
            #expect(after.first { $0["id"] as? String == "e_med" }?["annotation"] == nil)
        }
    }

    @Test("an annotation survives a re-import that changes the record; an entry the source removed keeps it, orphaned")
    func survivesReimport() async throws {
        try await ServedApp.with(records: [Self.record]) { served in
            #expect(try await Self.put(served, entry: "e_res", #"{"note":"taken fasting"}"#).status == 200)
            #expect(try await Self.put(served, entry: "e_med", #"{"struck":true}"#).status == 200)
            var changed = Self.entries
            changed[2].value = 4.4
            changed.remove(at: 1) // the source no longer has the medication
            _ = try served.store.importRecordSync(.record("ann", entries: changed))
            let entries = try await Self.timelineEntries(served)
            let result = try #require(entries.first { $0["id"] as? String == "e_res" })
            #expect((result["measurement"] as? [String: Any])?["value"] as? Double == 4.4)
            #expect((result["annotation"] as? [String: Any])?["note"] as? String == "taken fasting")
            let list = try await served.client.get("/patients/\(Self.patientID)/annotations.json").object
            let orphan = try #require((list["annotations"] as? [[String: Any]])?.first { $0["entry_id"] as? String == "e_med" })
            #expect(orphan["orphaned"] as? Bool == true && orphan["struck"] as? Bool == true)
            // It says what it was on.
            #expect((orphan["entry"] as? [String: Any])?["description"] as? String == "Albuterol")
            #expect((orphan["entry"] as? [String: Any])?["type"] as? String == "medication")
            // It can still be changed (or deleted), though no new annotation can be made for an unknown id.
            #expect(try await Self.put(served, entry: "e_med", #"{"note":"stopped it myself"}"#).status == 200)
            let export = try #require(try ExportDocument.encodeSync(patientID: Self.patientID, from: served.store))
            let document = try #require(try JSONSerialization.jsonObject(with: Data(export)) as? [String: Any])
            #expect((document["annotations"] as? [[String: Any]])?.count == 2)
        }
    }

    @Test("a FHIR re-import keeps the annotation on the same resource's entry")
    func survivesFHIRReimport() async throws {
        try await ServedApp.with { served in
            let bundle = { (value: Int) in Array(#"{"resourceType":"Bundle","type":"collection","entry":[{"resource":{"resourceType":"Patient","id":"p-annotated-0001","name":[{"text":"F H"}]}},{"resource":{"resourceType":"Observation","id":"o1","subject":{"reference":"Patient/p-annotated-0001"},"code":{"text":"Potassium"},"effectiveDateTime":"2010-12-30T10:00:00Z","valueQuantity":{"value":\#(value),"unit":"mmol/L"}}}]}"#.utf8) }
            let importer = FileImporter(store: served.store)
            let first = await importer.importFiles([ImportInputFile(name: "a.json", bytes: bundle(4))])
            let patient = try #require(first.patients.first?.id)
            let entry = try #require(try served.store.entriesSync(patientID: patient, from: 0, to: Self.end).first?.id)
            let put = try await served.client.send("PUT", "/patients/\(patient)/entries/\(entry)/annotation",
                                                   headers: ["Content-Type": "application/json"], body: Array(#"{"note":"recheck"}"#.utf8))
            #expect(put.status == 200)
            let again = await importer.importFiles([ImportInputFile(name: "a.json", bytes: bundle(5))])
            #expect(again.totals.entriesUpdated == 1)
            let page = try await served.client.get("/timeline.json?page=year&end=\(Self.end)&patient=\(patient)").object
            let result = try #require((page["results"] as? [[String: Any]])?.first)
            #expect(result["id"] as? String == entry)
            #expect((result["annotation"] as? [String: Any])?["note"] as? String == "recheck")
        }
    }

    @Test("bad annotations: unknown entry or patient, another patient's entry, too large, wrong types, unknown fields, not JSON")
    func refused() async throws {
        let other = PatientRecord.record("other", entries: [.entry(.result, "x", id: "e_other", at: 1_293_900_000)])
        try await ServedApp.with(records: [Self.record, other]) { served in
            #expect(try await Self.put(served, entry: "e_nope", #"{"note":"x"}"#).status == 404)
            #expect(try await Self.put(served, entry: "e_res", #"{"note":"x"}"#, patient: "p_nobody").status == 404)
            // e_other is the other patient's: not this one's, and nothing is written anywhere.
            #expect(try await Self.put(served, entry: "e_other", #"{"note":"x"}"#).status == 404)
            let big = #"{"note":""# + String(repeating: "a", count: 1 << 20) + #""}"#
            #expect(try await Self.put(served, entry: "e_res", big).status == 413)
            #expect(try await Self.put(served, entry: "e_res", #"{"struck":"yes"}"#).errorCode == "bad_annotation")
            #expect(try await Self.put(served, entry: "e_res", #"{"colour":"red"}"#).errorCode == "bad_annotation")
            #expect(try await Self.put(served, entry: "e_res", #"{"medication":{"brand":"x"}}"#).errorCode == "bad_annotation")
            #expect(try await Self.put(served, entry: "e_res", #"["note"]"#).errorCode == "bad_annotation")
            let form = try await served.client.send("PUT", "/patients/\(Self.patientID)/entries/e_res/annotation",
                                                    headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array("note=x".utf8))
            #expect(form.status == 415)
            #expect(try served.store.annotationsSync(patientID: Self.patientID).isEmpty)
            #expect(try served.store.annotationsSync(patientID: Patient.id(sourceName: "files", recordID: "other")).isEmpty)
        }
    }

    @Test("an empty annotation removes what was there (204); GET tells an unknown entry from one without an annotation")
    func emptyAndUnknown() async throws {
        try await ServedApp.with(records: [Self.record]) { (served: ServedApp) async throws in
            #expect(try await Self.put(served, entry: "e_res", #"{"note":"x"}"#).status == 200)
            #expect(try await Self.put(served, entry: "e_res", #"{"note":null,"struck":false}"#).status == 204)
            #expect(try served.store.annotationsSync(patientID: Self.patientID).isEmpty)
            #expect(try await Self.put(served, entry: "e_nope", "{}").status == 404)
            #expect(try await served.client.get("/patients/\(Self.patientID)/entries/e_res/annotation").errorCode == "no_annotation")
            #expect(try await served.client.get("/patients/\(Self.patientID)/entries/e_nope/annotation").errorCode == "unknown_entry")
        }
    }
}
