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

    @Test("the C-CDA validator passes a CCD whose results carry ranges and interpretations",
          .enabled(if: SharedValidators.ccda.available, SharedValidators.ccda.skipReason))
    func ccdaValidator() throws {
        let folder = TemporaryDirectory()
        try folder.file("ccd.xml", bytes: CCDWriter.write(Self.record(), options: SharingOptions(now: 1_700_000_000)))
        let ccda = try SharedValidators.validateCCDA(folder.file("ccd.xml"))
        #expect(ccda.passed, "\(ccda.report)")
    }

    @Test("CCD: referenceRange (IVL_PQ bounds, text) and interpretationCode read back equal by the C-CDA reader")
    func ccdRoundTrip() throws {
        // Three distinct readings (the reader takes one code at one time with one value as one fact).
        var record = Self.record()
        for index in record.items.indices {
            record.items[index].entry.time = 1_600_000_000 + Int64(index) * 86_400
            record.items[index].entry.date = record.items[index].entry.time
        }
        let xml = CCDWriter.write(record, options: SharingOptions(now: 1_700_000_000))
        let text = String(decoding: xml, as: UTF8.self)
        #expect(text.contains(#"<interpretationCode code="H" codeSystem="2.16.840.1.113883.5.83""#))
        #expect(text.contains(#"xsi:type="IVL_PQ""#))
        let entries = try CCDAReader().read(xml, name: "ccd.xml").record.entries.filter { $0.type == .result }
        #expect(entries.count == 3)
        for item in record.items {
            let written = item.entry
            let read = try #require(entries.first { $0.time == written.time && $0.interpretation == written.interpretation },
                                    "\(written.id) not read back")
            #expect(read.referenceRange == written.referenceRange, "\(written.id)")
        }
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
