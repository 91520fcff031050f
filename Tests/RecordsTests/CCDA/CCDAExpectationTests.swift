import Foundation
@testable import Records
import HealthRecord
import TestSupport
import Testing

/// Each shared document against what it holds, computed here with XPath over the document itself: by
/// section LOINC code and the statements' plain structure (not the reader's templates), the number of
/// statements of each kind, their codes, their dates and their values.
@Suite("C-CDA documents against XPath over themselves",
       .enabled(if: SharedSamples.ccda.available, SharedSamples.ccda.skipReason))
struct CCDAExpectationTests {
    struct Kind: Sendable, CustomStringConvertible {
        let type: EntryType
        /// The LOINC codes of the sections it is read from.
        let section: [String]
        /// The statements of the section, from the section.
        let statements: String
        /// The code that says what a statement is, from the statement.
        let concept: String
        var description: String { type.rawValue }
    }

    static let kinds = [
        Kind(type: .condition, section: ["11450-4"], statements: "hl7:entry/hl7:act/hl7:entryRelationship/hl7:observation", concept: "hl7:value"),
        Kind(type: .allergy, section: ["48765-2"], statements: "hl7:entry/hl7:act/hl7:entryRelationship/hl7:observation",
             concept: ".//hl7:participant/hl7:participantRole/hl7:playingEntity/hl7:code"),
        Kind(type: .medication, section: ["10160-0"], statements: "hl7:entry/hl7:substanceAdministration",
             concept: "hl7:consumable/hl7:manufacturedProduct/hl7:manufacturedMaterial/hl7:code"),
        Kind(type: .immunization, section: ["11369-6"], statements: "hl7:entry/hl7:substanceAdministration",
             concept: "hl7:consumable/hl7:manufacturedProduct/hl7:manufacturedMaterial/hl7:code"),
        Kind(type: .result, section: ["30954-2", "47420-5"], statements: "hl7:entry//hl7:observation[not(ancestor::hl7:observation)]", concept: "hl7:code"),
        Kind(type: .vitalSign, section: ["8716-3"], statements: "hl7:entry//hl7:observation[not(ancestor::hl7:observation)]", concept: "hl7:code"),
    ]

    /// The ccda-samples documents, and the two C-CDA/C32 documents among the RHEx samples.
    static let documents = CCDAReaderTests.documents.map { "ccda-samples/" + $0 }
        + ["rhex-samples/pds_Henry_Smith44_c32.xml", "rhex-samples/hds_sample_ccda.xml"]

    /// What the document says of one kind: statements that are not negated, counted once a content.
    struct Expected {
        var count = 0
        var codes = Set<String>()
        /// Numeric values with their code (results and vital signs).
        var values: [String: Set<Double>] = [:]
        var dates = Set<Int64>()
    }

    static func expected(_ kind: Kind, in document: XMLDocument) -> Expected {
        var out = Expected()
        var seen = Set<[String]>()
        // By LOINC code, except one known defect: Henry Smith's C32 gives its allergies section (HITSP C83
        // allergies template) the Problem List code; the template decides.
        let allergies = "hl7:templateId/@root='2.16.840.1.113883.3.88.11.83.102'"
        let codes = "(" + kind.section.map { "hl7:code/@code='\($0)'" }.joined(separator: " or ") + ")"
        let selector = kind.type == .allergy ? "\(codes) or \(allergies)" : "\(codes) and not(\(allergies))"
        for section in document.nodes("//hl7:section[\(selector)]") {
            // A refused vaccine is an immunization "not-done"; other negated statements are not entries.
            for statement in section.nodes(kind.statements) where kind.type == .immunization || statement.attribute("negationInd") != "true" {
                // A concern's severity (SEV) or status (33999-4) says how, not what.
                if ["SEV", "33999-4"].contains(statement.node("hl7:code")?.attribute("code")) { continue }
                // "No known allergies" stated as a value (C32) is no allergy.
                if let value = statement.node("hl7:value")?.attribute("code"), CCDAEntryReader.noKnownAllergy.contains(value) { continue }
                let concept = statement.node(kind.concept)
                let code = concept?.attribute("code")
                // A statement without a code and without words is not an entry (the reader says so).
                guard code != nil || concept?.attribute("displayName") != nil || concept?.node("hl7:originalText") != nil
                    || statement.node("hl7:value") != nil || statement.node("hl7:text/hl7:reference") != nil else { continue }
                // Ids are evidence, not identity (vendors give one id to different facts): the same fact is the
                // same content.
                let time = statement.node("hl7:effectiveTime")
                let when = time?.attribute("value") ?? time?.node("hl7:low")?.attribute("value") ?? time?.node("hl7:center")?.attribute("value")
                let value = statement.node("hl7:value")
                let content = [code ?? concept?.attribute("displayName") ?? concept?.node("hl7:originalText")?.text ?? "",
                               when ?? "", value?.attribute("value") ?? value?.attribute("code") ?? value?.text ?? "",
                               concept?.node("hl7:originalText/hl7:reference")?.attribute("value") ?? "",
                               statement.node("hl7:text/hl7:reference")?.attribute("value") ?? ""]
                guard seen.insert(content).inserted else { continue }
                out.count += 1
                if let code { out.codes.insert(code) }
                if let code, let value = statement.node("hl7:value[@value]")?.attribute("value"), let number = Double(value) {
                    out.values[code, default: []].insert(number)
                }
                if let date = (time?.attribute("value") ?? time?.node("hl7:low")?.attribute("value") ?? time?.node("hl7:center")?.attribute("value"))
                    .flatMap(HL7Time.parse) {
                    out.dates.insert(date)
                }
            }
        }
        return out
    }

    @Test("counts, codes, values and dates by kind of entry", arguments: documents)
    func document(name: String) throws {
        let folder = name.hasPrefix("rhex-samples/") ? SharedSamples.rhex : SharedSamples.ccda
        guard folder.available else { return }
        let bytes = try folder.bytes(String(name.split(separator: "/", maxSplits: 1)[1]))
        let xml = try XMLDocument(bytes)
        let record = try CCDAReader().read(bytes, name: name).record
        for kind in Self.kinds {
            let want = Self.expected(kind, in: xml)
            let got = record.entries.filter { $0.type == kind.type }
            // Conditions: the problem list's, and the problems other statements state (encounter diagnoses,
            // indications) that it lacks: those the corpus test's independent count checks.
            if kind.type == .condition {
                #expect(got.count >= want.count, "\(name) \(kind): \(got.count) entries, the problem list holds \(want.count)")
            } else {
                #expect(got.count == want.count, "\(name) \(kind): \(got.count) entries, the document holds \(want.count)")
            }
            let codes = Set(got.flatMap { $0.codes.values.joined() })
            #expect(want.codes.isSubset(of: codes), "\(name) \(kind): codes \(want.codes.subtracting(codes)) not read")
            for (code, numbers) in want.values {
                let read = Set(got.filter { $0.codes.values.contains { $0.contains(code) } }.compactMap(\.value))
                #expect(numbers.isSubset(of: read), "\(name) \(kind) \(code): values \(numbers) read as \(read)")
            }
            let dates = Set(got.compactMap(\.date))
            #expect(want.dates.isSubset(of: dates), "\(name) \(kind): dates \(want.dates.subtracting(dates)) not read")
        }
    }
}
