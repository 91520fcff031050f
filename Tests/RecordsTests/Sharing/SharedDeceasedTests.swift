import Foundation
import HealthRecord
@testable import Records
import Testing
import TestSupport

/// A person who died, in the documents for a doctor: the IPS Patient's `deceasedDateTime` (or
/// `deceasedBoolean`), the CCD patient's `sdtc:deceasedInd` and `sdtc:deceasedTime`; both valid, and
/// read back by the importers as they were.
@Suite("documents for a doctor: a person who died")
struct SharedDeceasedTests {
    static let died: Int64 = 1_650_000_000 // 2022-04-15T05:20:00Z

    /// No allergies (the required section holds IPS's absent/unknown entry), results with ranges.
    static func record(died: Int64?) -> SharedRecord {
        var record = SharedResultDetailTests.record()
        record.person.deceased = true
        record.person.deceasedDate = died
        return record
    }

    static func ips(_ record: SharedRecord) -> [UInt8] { IPSWriter.write(record, options: SharingOptions(now: 1_700_000_000)) }
    static func ccd(_ record: SharedRecord) -> [UInt8] { CCDWriter.write(record, options: SharingOptions(now: 1_700_000_000)) }

    @Test("IPS: deceasedDateTime when the date is known, deceasedBoolean when not, neither for the living")
    func ipsPatient() throws {
        func patient(_ record: SharedRecord) throws -> [String: Any] {
            let bundle = try #require(try JSONSerialization.jsonObject(with: Data(Self.ips(record))) as? [String: Any])
            let resources = (bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
            return try #require(resources.first { $0["resourceType"] as? String == "Patient" })
        }
        let dated = try patient(Self.record(died: Self.died))
        #expect(dated["deceasedDateTime"] as? String == SharedTime.fhir(Self.died) && dated["deceasedBoolean"] == nil)
        let undated = try patient(Self.record(died: nil))
        #expect(undated["deceasedBoolean"] as? Bool == true && undated["deceasedDateTime"] == nil)
        let living = try patient(SharedResultDetailTests.record())
        #expect(living["deceasedBoolean"] == nil && living["deceasedDateTime"] == nil)
    }

    @Test("round trip: the IPS and the CCD read back give deceased true with the date")
    func roundTrip() throws {
        let fhir = try FHIRReader().read(Self.ips(Self.record(died: Self.died)), name: "ips.json")
        let fromIPS = try #require(fhir.patients.first?.record)
        #expect(fromIPS.deceased == true && fromIPS.deceasedDate == Self.died)
        let fromCCD = try CCDAReader().read(Self.ccd(Self.record(died: Self.died)), name: "ccd.xml").record
        #expect(fromCCD.deceased == true && fromCCD.deceasedDate == Self.died)
        let undated = try CCDAReader().read(Self.ccd(Self.record(died: nil)), name: "ccd.xml").record
        #expect(undated.deceased == true && undated.deceasedDate == nil)
        let living = try CCDAReader().read(Self.ccd(SharedResultDetailTests.record()), name: "ccd.xml").record
        #expect(living.deceased != true)
    }

    @Test("the IPS validator (--strict-references) passes a deceased person with no allergies; the C-CDA validator their CCD",
          .enabled(if: SharedValidators.ips.available && SharedValidators.ccda.available, SharedValidators.ips.skipReason))
    func validators() throws {
        let folder = TemporaryDirectory()
        for (name, died) in [("dated", Optional(Self.died)), ("undated", nil)] {
            try folder.file(name + ".json", bytes: Self.ips(Self.record(died: died)))
            try folder.file(name + ".xml", bytes: Self.ccd(Self.record(died: died)))
            let ips = try SharedValidators.validateIPS(folder.file(name + ".json"))
            #expect(ips.passed, "\(name): \(ips.report)")
            let ccda = try SharedValidators.validateCCDA(folder.file(name + ".xml"))
            #expect(ccda.passed, "\(name): \(ccda.report)")
        }
    }
}
