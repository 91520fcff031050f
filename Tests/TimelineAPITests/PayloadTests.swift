import Foundation
import Testing
import HealthRecord
import Store
import TestSupport
@testable import TimelineAPI

@Suite("Timeline payload")
struct PayloadTests {
    static let patient = Patient.patient(id: "p_1", name: "Henry Smith", gender: "M", birthdate: -972_586_800, entryCount: 3)

    func decode(_ bytes: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
    }

    @Test("entry arrays are present only when not empty; vitals, ongoing and the post arrays always are")
    func presence() throws {
        let snapshot = TimelineSnapshot(patient: Self.patient, entries: .stored([
            .entry(.condition, "Heart Failure", id: "e_1", at: 10),
        ]), ongoing: [], posts: [])
        let json = decode(TimelinePayload.encode(snapshot, window: TimelineWindow(start: 0, end: 100)))
        #expect(json["conditions"] != nil)
        for absent in ["results", "allergies", "encounters", "immunizations", "medications", "procedures", "vital_signs"] {
            #expect(json[absent] == nil, "\(absent) should be absent")
        }
        for present in ["vitals", "ongoing", "timeline_medications", "regimens", "levels", "timeline_entries", "patient"] {
            #expect(json[present] != nil, "\(present) should be present")
        }
        #expect(json["start_date"] as? Int == 0)
        #expect(json["end_date"] as? Int == 100)
        let patient = try #require(json["patient"] as? [String: Any])
        #expect(patient["birthdate"] as? Int == -972_586_800)
    }

    @Test("a measurement is a number, or null with the text beside it")
    func measurements() throws {
        let snapshot = TimelineSnapshot(patient: Self.patient, entries: .stored([
            .entry(.result, "Total Cholesterol", id: "e_1", at: 10, value: 179, units: "mg/dL"),
            .entry(.result, "HIV", id: "e_2", at: 11, text: "Positive"),
            .entry(.result, "Empty", id: "e_3", at: 12),
        ]), ongoing: [], posts: [])
        let bytes = TimelinePayload.encode(snapshot, window: TimelineWindow(start: 0, end: 100))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#""measurement":{"value":179,"unit":"mg/dL"}"#))
        #expect(text.contains(#""measurement":{"value":null,"unit":null,"text":"Positive"}"#))
        #expect(text.contains(#""measurement":{"value":null,"unit":null},"type":"result""#))
    }

    @Test("vitals group by description in date order; blood pressure last, systolic before diastolic")
    func vitals() throws {
        let readings: [StoredEntry] = .stored([
            .entry(.vitalSign, "Systolic Blood Pressure", id: "v1", at: 1, value: 120, units: "mm[Hg]"),
            .entry(.vitalSign, "Heart Rate", id: "v2", at: 2, value: 74, units: "/min"),
            .entry(.vitalSign, "Diastolic Blood Pressure", id: "v3", at: 3, value: 74, units: "mm[Hg]"),
            .entry(.vitalSign, "Heart Rate", id: "v4", at: 4, value: 72, units: "bpm"),
            .entry(.vitalSign, "Body Weight", id: "v5", at: 5, text: "unknown"),
            .entry(.vitalSign, "BMI", id: "v6", at: 6, value: 24.5, units: "kg/m2"),
        ])
        let groups = VitalGroups.make(readings)
        #expect(groups.map(\.description) == ["BMI", "Heart Rate", "Systolic Blood Pressure", "Diastolic Blood Pressure"])
        let heart = try #require(groups.first { $0.description == "Heart Rate" })
        #expect(heart.values == [74, 72])
        #expect(heart.dates == [2, 4])
        #expect(Array(heart.ids) == ["v2", "v4"])
        #expect(heart.units == "/min")
    }

    @Test("posts come out in the original shapes and with their ids")
    func posts() throws {
        let posts = [
            TimelinePost(id: "t_1", patientID: "p_1", kind: .levels, createdAt: 5, dataJSON: #"{"pain":"5","mood":"5"}"#),
            TimelinePost(id: "t_2", patientID: "p_1", kind: .medication, createdAt: 6, dataJSON: #"{"description":"Ibuprofen 200","select-choice-freq":"BID"}"#),
            TimelinePost(id: "t_3", patientID: "p_1", kind: .regimen, createdAt: 7, dataJSON: #"{"select-choice-by":["AD","ND"]}"#),
            TimelinePost(id: "t_4", patientID: "p_1", kind: .levels, createdAt: 8, dataJSON: #"{"pain":7,"energy":"6"}"#),
        ]
        let snapshot = TimelineSnapshot(patient: Self.patient, entries: [], ongoing: [], posts: posts)
        let json = decode(TimelinePayload.encode(snapshot, window: TimelineWindow(start: 0, end: 100)))
        let levels = try #require(json["levels"] as? [String: [String]])
        #expect(levels == ["pain": ["5", "7"], "mood": ["5"], "energy": ["6"]])
        let medications = try #require(json["timeline_medications"] as? [[String: String]])
        #expect(medications == [["description": "Ibuprofen 200", "select-choice-freq": "BID"]])
        let regimens = try #require(json["regimens"] as? [[String: [String]]])
        #expect(regimens == [["select-choice-by": ["AD", "ND"]]])
        let entries = try #require(json["timeline_entries"] as? [[String: Any]])
        #expect(entries.map { $0["id"] as? String } == ["t_1", "t_2", "t_3", "t_4"])
        #expect(entries.map { $0["type"] as? String } == ["levels", "medication", "regimen", "levels"])
    }
}
