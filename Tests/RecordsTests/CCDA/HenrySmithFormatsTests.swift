import Foundation
@testable import Records
import HealthRecord
import TestSupport
import Testing

/// `pds_Henry_Smith44_c32.xml` and `hreader_hs_henry_smith.json` are the same synthetic Henry Smith, in
/// HITSP C32 and in RHEx record JSON: the same person and the same entries (type, description, date,
/// value, codes), except where the formats themselves differ, each listed here with its reason.
@Suite("Henry Smith in C32 and in RHEx", .enabled(if: SharedSamples.rhex.available, SharedSamples.rhex.skipReason))
struct HenrySmithFormatsTests {
    struct Fact: Hashable, CustomStringConvertible {
        let type: EntryType
        let date: Int64?
        let name: String?
        let value: Double?
        var description: String { "\(type.rawValue) \(date.map(String.init) ?? "-") \(name ?? "-") \(value.map { "\($0)" } ?? "-")" }

        init(_ entry: Entry) {
            type = entry.type
            date = entry.date
            name = entry.description
            value = entry.value
        }

        init(_ type: EntryType, _ date: Int64?, _ name: String?, _ value: Double? = nil) {
            self.type = type
            self.date = date
            self.name = name
            self.value = value
        }
    }

    /// In the RHEx record only. The C32 was made from the same patient's data but does not carry these
    /// (the document has no such words at all: no "Oxygen", "Respiration", "BNP", "Troponin",
    /// "Echocardiogram", "Stress test", "Aspirin" or "Furosemide"); and RHEx writes "no known allergies"
    /// as an allergy with nothing in it, which the C32 states as a finding (not an allergy).
    static let onlyInRHEx: Set<Fact> = [
        Fact(.allergy, nil, nil),
        Fact(.medication, 1277438400, "Lisinopril"), Fact(.medication, 1279598400, "Aspirin"), Fact(.medication, 1279598400, "Furosemide"),
        Fact(.medication, 1279598400, "Metoprolol XL (once daily)"),
        Fact(.procedure, 1279598400, "Echocardiogram"), Fact(.procedure, 1279598400, "Stress test and EKG"),
        Fact(.result, 1282104000, "BNP", 585), Fact(.result, 1282104000, "Troponin", 0.12),
        Fact(.result, 1282104000, "Bilateral 3+ pitting edema"), Fact(.result, 1282104000, "Diminished pedal pulses 1+ bilaterally"),
        Fact(.result, 1282104000, "Crackles heard bilaterally in lung bases, elevated BP, oliguria, hyperventilation, PaO2 86%"),
        Fact(.vitalSign, 1280635200, "Oxygen Saturation", 90.1), Fact(.vitalSign, 1280635200, "Respiration", 22),
        Fact(.vitalSign, 1289797200, "Oxygen Saturation", 90.3), Fact(.vitalSign, 1289797200, "Respiration", 19),
        Fact(.vitalSign, 1292389200, "Oxygen Saturation", 92.5), Fact(.vitalSign, 1292389200, "Respiration", 20),
        Fact(.vitalSign, 1307937600, "Oxygen Saturation", 91.7), Fact(.vitalSign, 1307937600, "Respiration", 18),
        Fact(.vitalSign, 1326603600, "Oxygen Saturation", 92.1), Fact(.vitalSign, 1326603600, "Respiration", 17),
    ]

    /// In the C32 only. Its two medications name the drug class (its originalText), where RHEx names the
    /// drug (the same RxNorm codes 314076 and 866924: see the codes test); RHEx's social history and care
    /// goals have no description and are not timeline entries of the RHEx reader (they stay in the
    /// record's other fields), while the C32 names them.
    static let onlyInC32: Set<Fact> = [
        Fact(.medication, 1277438400, "ACE inhibitors"), Fact(.medication, 1279598400, "Beta Blocker Therapy"),
        Fact(.socialHistory, 1277438400, "Tobacco Non-User"), Fact(.careGoal, 1277438400, "follow-up plan_BMI management"),
    ]

    static func read() throws -> (c32: PatientRecord, rhex: PatientRecord) {
        let c32 = try CCDAReader().read(try SharedSamples.rhex.bytes("pds_Henry_Smith44_c32.xml"), name: "c32").record
        let rhex = try RecordParser().parse(try SharedSamples.rhex.bytes("hreader_hs_henry_smith.json"))
        return (c32, rhex)
    }

    @Test("the same person: birth date, gender, given and family names")
    func person() throws {
        let (c32, rhex) = try Self.read()
        #expect(c32.birthdate == rhex.birthdate && c32.gender == rhex.gender)
        #expect(c32.firstName == rhex.firstName)
        // The C32's family name carries the generator's number: "Smith44".
        #expect(c32.lastName?.hasPrefix(rhex.lastName ?? "?") == true)
    }

    @Test("the same entries (type, description, date, value), but for the listed format differences")
    func entries() throws {
        let (c32, rhex) = try Self.read()
        // Multisets: the RHEx record gives "Stress test and EKG" twice on one day.
        let fromC32 = Set(c32.entries.map(Fact.init)), fromRHEx = Set(rhex.entries.map(Fact.init))
        #expect(fromRHEx.subtracting(fromC32) == Self.onlyInRHEx, "\(fromRHEx.subtracting(fromC32).subtracting(Self.onlyInRHEx))")
        #expect(fromC32.subtracting(fromRHEx) == Self.onlyInC32, "\(fromC32.subtracting(fromRHEx).subtracting(Self.onlyInC32))")
        #expect(fromC32.intersection(fromRHEx).count > 100)
    }

    @Test("entries both give have the same codes, whatever system names each document uses")
    func codes() throws {
        let (c32, rhex) = try Self.read()
        var byFact: [Fact: [String: [String]]] = [:]
        for entry in rhex.entries { byFact[Fact(entry)] = entry.codes }
        var compared = 0
        for entry in c32.entries {
            guard let codes = byFact[Fact(entry)] else { continue }
            compared += 1
            let want = Set(codes.flatMap { system, values in values.map { system + " " + $0 } })
            let got = Set(entry.codes.flatMap { system, values in values.map { system + " " + $0 } })
            #expect(want.isSubset(of: got), "\(Fact(entry)): \(want.subtracting(got)) missing")
        }
        #expect(compared > 100)
        // The two medications the formats name differently share their RxNorm codes.
        let rxnorm = { (record: PatientRecord) in Set(record.entries.filter { $0.type == .medication }.flatMap { $0.codes["RxNorm"] ?? [] }) }
        #expect(rxnorm(c32) == ["314076", "866924"])
        #expect(rxnorm(c32).isSubset(of: rxnorm(rhex)))
    }
}
