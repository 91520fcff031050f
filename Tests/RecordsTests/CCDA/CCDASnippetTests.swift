import Foundation
@testable import Records
import HealthRecord
import TestSupport
import Testing

/// HL7's own examples of the hard cases (`../shared/ccda-samples/hl7-snippets/`): each a bare section,
/// wrapped here in a document envelope, with the entries it must give written out.
@Suite("C-CDA: HL7's hard cases, one section each",
       .enabled(if: SharedSamples.ccda.available, SharedSamples.ccda.skipReason))
struct CCDASnippetTests {
    /// The snippet in a `ClinicalDocument` with the HL7 and xsi namespaces (the snippets declare neither).
    static func document(_ name: String) throws -> CCDAReader.Result {
        var text = String(decoding: try SharedSamples.ccda.bytes("hl7-snippets/" + name), as: UTF8.self)
        if text.hasPrefix("<?xml"), let end = text.range(of: "?>") { text = String(text[end.upperBound...]) }
        text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let body = text.hasPrefix("<component") ? text : "<component>" + text + "</component>"
        let envelope = """
            <?xml version="1.0"?>
            <ClinicalDocument xmlns="urn:hl7-org:v3" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
            <id root="2.16.840.1.113883.19.5" extension="\(name)"/><effectiveTime value="20200101"/>
            <recordTarget><patientRole><id root="2.16.840.1.113883.19.5" extension="1"/><patient><name><given>Test</given>
            <family>Snippet</family></name><birthTime value="19700101"/></patient></patientRole></recordTarget>
            <component><structuredBody>\(body)</structuredBody></component></ClinicalDocument>
            """
        return try CCDAReader().read(Array(envelope.utf8), name: name)
    }

    static func time(_ hl7: String) -> Int64? { HL7Time.parse(hl7) }

    @Test("no known allergies, no known drug allergies, no diabetes: negated statements, not entries; the narrative is kept",
          arguments: ["allergy_no_known_allergies.xml", "allergy_no_known_medication_allergies.xml", "problem_negated_no_diabetes.xml"])
    func negated(name: String) throws {
        let result = try Self.document(name)
        #expect(result.record.entries.isEmpty)
        #expect(result.negated == 1)
        let text = result.record.documents.first?.sections.first?.text ?? ""
        #expect(text.contains("No Known") || text.contains("No Diabetes"))
    }

    @Test("a refused vaccine: an immunization not done, its description from the narrative it references")
    func refusedVaccine() throws {
        let entries = try Self.document("immunization_refused.xml").record.entries
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.type == .immunization && entry.status == "not-done")
        #expect(entry.description == "influenza, intradermal, quadrivalent")
        #expect(entry.codes == ["CVX": ["166"]])
        #expect(entry.time == Self.time("20151115"))
    }

    @Test("a resolved problem: its span, 'resolved' from the end of the span, its SNOMED, ICD-9 and ICD-10 codes")
    func resolvedProblem() throws {
        let entries = try Self.document("problem_resolved.xml").record.entries
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.type == .condition && entry.description == "Acute pharyngitis")
        #expect(entry.startTime == Self.time("20140402") && entry.endTime == Self.time("20140405235959-0500"))
        #expect(entry.status == "resolved")
        #expect(entry.codes == ["SNOMED-CT": ["363746003"], "ICD-9-CM": ["462"], "ICD-10-CM": ["J02.9"]])
    }

    @Test("'take as needed': the frequency and the precondition as directions; the IVL_TS start, no end")
    func asNeeded() throws {
        let entries = try Self.document("med_qid_prn_frequency.xml").record.entries
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.type == .medication && entry.description == "Ibuprofen 600mg Oral Tablet")
        #expect(entry.codes["RxNorm"] == ["197806"] && entry.codes["NDC"] == ["00603402221"])
        #expect(entry.startTime == Self.time("20131218") && entry.endTime == nil && entry.time == nil)
        #expect(entry.status == "active")
        #expect(entry.textValue == "every 6 hours, as needed")
    }

    @Test("a free-text sig: no code, the medication named by its narrative row, the sig as its directions")
    func freeTextSig() throws {
        let entries = try Self.document("med_free_text_sig.xml").record.entries
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.type == .medication && entry.codes.isEmpty)
        #expect(entry.description == "Experimental '150 cure-all drug', take one tab by mouth every morning")
        #expect(entry.textValue == "Experimental '150 cure-all drug', take one tab by mouth every morning")
        #expect(entry.startTime == Self.time("20180110"))
    }

    @Test("a '≤ 5' result: no number (5 is not the value), the bound as text, its unit")
    func lessThan() throws {
        let entries = try Self.document("result_less_than_value.xml").record.entries
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.type == .result && entry.codes["LOINC"] == ["42637-9"])
        #expect(entry.value == nil && entry.textValue == "≤ 5" && entry.units == "pg/mL")
        #expect(entry.time == Self.time("201310200908-0500"))
    }

    @Test("a string result: the text, no number")
    func stringResult() throws {
        let entries = try Self.document("result_string_value.xml").record.entries
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.codes["LOINC"] == ["5778-6"])
        #expect(entry.value == nil && entry.textValue == "Amber")
        #expect(entry.time == Self.time("20131023090823-0500"))
    }

    @Test("a non-UCUM unit: the number and unit from the translation, not lost to the nullFlavor")
    func nonUCUM() throws {
        let entries = try Self.document("result_unit_non_ucum.xml").record.entries
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.description == "Platelet count" && entry.codes["LOINC"] == ["26515-7"])
        #expect(entry.value == 152 && entry.units == "THOUS/MCL")
    }

    @Test("mixed metric and imperial vitals: every reading with the unit the document gives, at the organizer's time")
    func mixedUnits() throws {
        let entries = try Self.document("vitals_mixed_units.xml").record.entries
        #expect(entries.allSatisfy { $0.type == .vitalSign && $0.time == Self.time("20140520193605-0500") })
        let readings = Dictionary(uniqueKeysWithValues: entries.map { ($0.codes["LOINC"]?.first ?? "", "\($0.value ?? -1) \($0.units ?? "")") })
        #expect(readings == [
            "8480-6": "120.0 mm[Hg]", "8462-4": "80.0 mm[Hg]", "8867-4": "80.0 /min", "8310-5": "99.0 [degF]", "9279-1": "18.0 /min",
            "8302-2": "67.0 [in_us]", "29463-7": "239.9 [lb_av]", "39156-5": "37.58 kg/m2", "2710-2": "98.0 %",
        ])
    }
}
