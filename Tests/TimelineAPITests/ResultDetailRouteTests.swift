import Foundation
import Modules
import HealthRecord
import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// What the source said about a result on the timeline and in the export, and a person who has died in
/// `/patients.json`, on the timeline and in the summary (issue 38).
@Suite("reference ranges, interpretations and deceased over HTTP")
struct ResultDetailRouteTests {
    /// 2026-11-24T12:00:00Z.
    static let now: Int64 = 1_795_521_600
    static let day: Int64 = 86_400
    /// 2019-05-14T00:00:00Z.
    static let died: Int64 = 1_557_792_000

    static func record(deceased: Bool = false) -> PatientRecord {
        var glucose = Entry.entry(.result, "Glucose", id: "e_glu", at: died - 30 * day, value: 130, units: "mg/dL", codes: ["LOINC": ["2345-7"]])
        glucose.referenceRange = ReferenceRange(low: .init(value: 70, unit: "mg/dL"), high: .init(value: 99, unit: "mg/dL"), text: "70-99 mg/dL")
        glucose.interpretation = "H"
        glucose.sourceNote = "Fasting."
        var record = PatientRecord.record("old", name: "Ruth Elder", gender: "F", birthdate: -1_167_609_600, entries: [
            glucose,
            .entry(.result, "Sodium", id: "e_na", at: died - 30 * day, value: 140, units: "mmol/L"),
            .entry(.vitalSign, "Systolic Blood Pressure", id: "e_sys", at: died - 40 * day, value: 150, units: "mm[Hg]", codes: ["LOINC": ["8480-6"]]),
            .entry(.vitalSign, "Diastolic Blood Pressure", id: "e_dia", at: died - 40 * day, value: 95, units: "mm[Hg]", codes: ["LOINC": ["8462-4"]]),
            .entry(.medication, "Lisinopril", id: "e_med", start: died - 900 * day, status: "active"),
        ])
        if deceased { (record.deceased, record.deceasedDate) = (true, died) }
        return record
    }

    static var patientID: String { Patient.id(sourceName: "files", recordID: "old") }

    @Test("timeline: reference_range, interpretation and source_note when the source gave them, absent when not")
    func timelineFields() async throws {
        try await ServedApp.with(records: [Self.record()], now: Self.now) { served in
            let page = try await served.client.get("/timeline.json?page=all&patient=\(Self.patientID)").object
            let results = try #require(page["results"] as? [[String: Any]])
            let glucose = try #require(results.first { $0["description"] as? String == "Glucose" })
            let range = try #require(glucose["reference_range"] as? [String: Any])
            #expect((range["low"] as? [String: Any])?["value"] as? Double == 70)
            #expect((range["high"] as? [String: Any])?["unit"] as? String == "mg/dL")
            #expect(range["text"] as? String == "70-99 mg/dL")
            #expect(glucose["interpretation"] as? String == "H" && glucose["source_note"] as? String == "Fasting.")
            let sodium = try #require(results.first { $0["description"] as? String == "Sodium" })
            #expect(sodium["reference_range"] == nil && sodium["interpretation"] == nil && sodium["source_note"] == nil)

            let export = try await served.client.get("/patients/\(Self.patientID)/export.json").object
            let entries = try #require(export["entries"] as? [[String: Any]])
            #expect(entries.first { $0["id"] as? String == glucose["id"] as? String }?["interpretation"] as? String == "H")
            #expect((export["patient"] as? [String: Any])?["deceased"] as? Bool == false)
        }
    }

    @Test("patients.json, the timeline and the summary say a person died, and when; a living person's say false and null")
    func deceased() async throws {
        try await ServedApp.with(records: [Self.record(deceased: true), .record("alive", name: "Al Ive", birthdate: 0)], now: Self.now) { served in
            let list = try #require(try await served.client.get("/patients.json").object["patients"] as? [[String: Any]])
            let ruth = try #require(list.first { $0["id"] as? String == Self.patientID })
            #expect(ruth["deceased"] as? Bool == true && ruth["deceased_date"] as? Int64 == Self.died)
            let al = try #require(list.first { $0["id"] as? String != Self.patientID })
            #expect(al["deceased"] as? Bool == false && al["deceased_date"] is NSNull)
            let page = try await served.client.get("/timeline.json?page=all&patient=\(Self.patientID)").object
            #expect((page["patient"] as? [String: Any])?["deceased_date"] as? Int64 == Self.died)

            let summary = try await served.client.get("/patients/\(Self.patientID)/summary.json").object
            let patient = try #require(summary["patient"] as? [String: Any])
            // Born 1933-01-01, died 2019-05-14: 86, not the 93 of 2026.
            #expect(patient["deceased"] as? Bool == true && (patient["age"] as? Double).map { $0 >= 86 && $0 < 87 } == true)
            let messages = (summary["modules"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
            #expect(!messages.isEmpty)
            for message in messages {
                #expect(!message.contains("clinician") && !message.contains("Add "), "advice for a person who has died: \(message)")
            }
            #expect(messages.contains { $0.contains("when they died") })
        }
    }

    @Test("a reading older than a year is said with its age; the source's range is used for the lab's verdict")
    func oldReadings() async throws {
        try await ServedApp.with(records: [Self.record()], now: Self.now) { served in
            let summary = try await served.client.get("/patients/\(Self.patientID)/summary.json").object
            let modules = summary["modules"] as? [[String: Any]] ?? []
            let pressure = try #require(modules.first { $0["id"] as? String == "blood-pressure" }?["message"] as? String)
            #expect(pressure.contains("(7 years ago)"))
            let sugar = try #require(modules.first { $0["id"] as? String == "blood-sugar" })
            let message = try #require(sugar["message"] as? String)
            #expect(message.contains("Above the lab's range (70–99)") && message.contains("years ago"))
            let tile = try #require((sugar["tile"] as? [String: Any])?["glucose"] as? [String: Any])
            #expect(tile["outside_source_range"] as? Bool == true)
            #expect((tile["source_range"] as? [String: Any])?["high"] as? Double == 99)
        }
    }
}
