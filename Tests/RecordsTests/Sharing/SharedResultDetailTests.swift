import Foundation
import HealthRecord
@testable import Records
import Testing
import TestSupport

/// A result's normal range and interpretation in the IPS: the Observation's `referenceRange` and
/// `interpretation` (issue 38); a range that says nothing is left out.
@Suite("documents for a doctor: what the source said about a result")
struct SharedResultDetailTests {
    static func item(_ id: String, range: ReferenceRange?, interpretation: String?) -> SharedRecord.Item {
        SharedRecord.Item(entry: StoredEntry(id: id, type: .result, description: "Glucose", date: 1_600_000_000, time: 1_600_000_000,
                                             startTime: nil, endTime: nil, status: "final", value: 130, textValue: nil, units: "mg/dL",
                                             codesJSON: #"{"LOINC":["2345-7"]}"#, referenceRange: range, interpretation: interpretation),
                          rawJSON: "{}", note: nil)
    }

    static func record() -> SharedRecord {
        let range = ReferenceRange(low: .init(value: 70, unit: "mg/dL"), high: .init(value: 99, unit: "mg/dL"), text: "70-99 mg/dL")
        let textOnly = ReferenceRange(low: nil, high: nil, text: "Negative")
        return SharedRecord(person: .init(id: "p_1", name: "Ada Lovelace", firstName: "Ada", lastName: "Lovelace", gender: "F",
                                          birthdate: 0, identifiers: []),
                            sources: ["files"],
                            items: [Self.item("e_1", range: range, interpretation: "H"), Self.item("e_2", range: nil, interpretation: nil),
                                    Self.item("e_3", range: textOnly, interpretation: "NEG")],
                            readings: [], struck: [:])
    }

    @Test("the IPS validator passes an IPS whose results carry ranges and interpretations",
          .enabled(if: SharedValidators.ips.available, SharedValidators.ips.skipReason))
    func validator() throws {
        let folder = TemporaryDirectory()
        try folder.file("ips.json", bytes: IPSWriter.write(Self.record(), options: SharingOptions(now: 1_700_000_000)))
        let ips = try SharedValidators.validateIPS(folder.file("ips.json"))
        #expect(ips.passed, "\(ips.report)")
    }

    @Test("IPS: the Observation carries the range (bounds with UCUM units, text) and the HL7 interpretation; none when the source gave none")
    func ips() throws {
        let bundle = try #require(try JSONSerialization.jsonObject(with: Data(IPSWriter.write(Self.record(), options: SharingOptions(now: 1_700_000_000)))) as? [String: Any])
        let observations = (bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
            .filter { $0["resourceType"] as? String == "Observation" }
        #expect(observations.count == 3)
        func coding(_ observation: [String: Any]) -> [String: Any]? {
            ((observation["interpretation"] as? [[String: Any]])?.first?["coding"] as? [[String: Any]])?.first
        }
        let flagged = try #require(observations.first { coding($0)?["code"] as? String == "H" })
        #expect(coding(flagged)?["system"] as? String == "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation")
        let written = try #require((flagged["referenceRange"] as? [[String: Any]])?.first)
        #expect((written["low"] as? [String: Any])?["value"] as? Double == 70)
        #expect((written["high"] as? [String: Any])?["code"] as? String == "mg/dL")
        #expect(written["text"] as? String == "70-99 mg/dL")
        let plain = try #require(observations.first { $0["interpretation"] == nil })
        #expect(plain["referenceRange"] == nil)
        #expect(observations.contains { (($0["referenceRange"] as? [[String: Any]])?.first?["text"] as? String) == "Negative" })
    }
}
