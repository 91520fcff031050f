import Foundation
@testable import Records
import HealthRecord
import TestSupport
import Testing

/// The C-CDA and C32 reader (a start: the issue's full comparisons with XPath-computed expectations and
/// Henry Smith's two formats are still to come).
@Suite("C-CDA and C32 documents")
struct CCDAReaderTests {
    static let documents = [
        "hl7_ccda21_ccd1_full.xml", "ccda21_companion_ccd.xml", "allscripts_mu2_170.314B2_Amb_CCD.xml",
        "cerner_transition_of_care_referral_summary.xml", "kinsights_phr_child_timmy_MESSY.xml", "kareo_is_actually_c32.ccd",
    ]

    @Test("every shared document reads: a named person with a birth date, entries with unique ids that a second read reproduces",
          .enabled(if: SharedSamples.ccda.available, SharedSamples.ccda.skipReason), arguments: documents)
    func samples(name: String) throws {
        let bytes = try SharedSamples.ccda.bytes(name)
        #expect(CCDAReader.looksLikeCDA(Array(bytes.prefix(4096))))
        let first = try CCDAReader().read(bytes, name: name)
        let second = try CCDAReader().read(bytes, name: name)
        #expect(!first.record.name.isEmpty && first.record.birthdate != nil)
        #expect(!first.record.identifiers.isEmpty)
        #expect(first.record.entries.count > 5)
        let ids = first.record.entries.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(ids == second.record.entries.map(\.id))
        #expect(first.record.entries.allSatisfy { $0.description != nil || !$0.codes.isEmpty || $0.value != nil || $0.textValue != nil })
    }

    @Test("the HL7 CCD: Eve Betterhalf, her allergies to penicillin and codeine, her vital signs with their units",
          .enabled(if: SharedSamples.ccda.available, SharedSamples.ccda.skipReason))
    func hl7CCD() throws {
        let result = try CCDAReader().read(try SharedSamples.ccda.bytes("hl7_ccda21_ccd1_full.xml"), name: "ccd")
        let record = result.record
        #expect(record.name == "Eve Betterhalf" && record.gender == "F")
        #expect(record.birthdate == HL7Time.parse("19750501"))
        let allergies = record.entries.filter { $0.type == .allergy }
        #expect(allergies.contains { $0.codes["RxNorm"]?.contains("70618") == true })
        #expect(allergies.contains { $0.codes["RxNorm"]?.contains("2670") == true })
        let vitals = record.entries.filter { $0.type == .vitalSign }
        #expect(vitals.contains { $0.units == "kg" && $0.value != nil })
        #expect(vitals.allSatisfy { $0.date != nil })
    }

    @Test("HL7 times: every precision, fractions and offsets; bad ones refused")
    func times() {
        #expect(HL7Time.parse("2012") == FHIRDate.parse("2012")?.seconds)
        #expect(HL7Time.parse("201204") == FHIRDate.parse("2012-04")?.seconds)
        #expect(HL7Time.parse("20120415") == FHIRDate.parse("2012-04-15")?.seconds)
        #expect(HL7Time.parse("20120415093000-0500") == FHIRDate.parse("2012-04-15T09:30:00-05:00")?.seconds)
        #expect(HL7Time.parse("20120415093000.123+0100") == FHIRDate.parse("2012-04-15T09:30:00+01:00")?.seconds)
        #expect(HL7Time.parse("201204150930") == FHIRDate.parse("2012-04-15T09:30:00Z")?.seconds)
        for bad in ["", "12", "20121301", "2012041", "20120415093000-05", "2012-04-15"] {
            #expect(HL7Time.parse(bad) == nil, "\(bad)")
        }
    }

    static func wrap(_ body: String) -> [UInt8] {
        Array(("<?xml version=\"1.0\"?>\n<ClinicalDocument xmlns=\"urn:hl7-org:v3\"><recordTarget><patientRole><id root=\"1.2.3\" extension=\"9\"/><patient><name><given>A</given><family>B</family></name><birthTime value=\"19800101\"/></patient></patientRole></recordTarget>" + body + "</ClinicalDocument>").utf8)
    }

    @Test("bad documents: malformed XML, an entity bomb, an external entity, no recordTarget, over the size limit, not CDA")
    func bad() throws {
        let reader = CCDAReader()
        func error(_ bytes: [UInt8]) -> String? {
            do { _ = try reader.read(bytes, name: "x.xml"); return nil } catch { return error.description }
        }
        #expect(error(Array("<ClinicalDocument><recordTarget>".utf8))?.contains("not well-formed") == true)
        let bomb = """
            <?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
            <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><ClinicalDocument xmlns="urn:hl7-org:v3">&lol3;</ClinicalDocument>
            """
        let bombError = error(Array(bomb.utf8))
        // libxml2's own guard stops the expansion while parsing, or the DTD is refused after: either way, refused.
        #expect(bombError.map { $0.contains("DTD") || $0.contains("entity") } == true, "\(String(describing: bombError))")
        let external = """
            <?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><ClinicalDocument xmlns="urn:hl7-org:v3"><title>&xxe;</title></ClinicalDocument>
            """
        #expect(error(Array(external.utf8))?.contains("DTD") == true)
        #expect(error(Array(#"<ClinicalDocument xmlns="urn:hl7-org:v3"><title>t</title></ClinicalDocument>"#.utf8))?.contains("recordTarget") == true)
        #expect(error(Array("<feed/>".utf8))?.contains("not ClinicalDocument") == true)
        #expect(throws: CCDAError.notXML(.tooLarge(bytes: Self.wrap("").count, maxBytes: 100))) {
            try CCDAReader(maxBytes: 100).read(Self.wrap(""), name: "x")
        }
    }

    @Test("negation: a 'no known allergies' statement is not an allergy; a refused vaccine is kept as not done")
    func negation() throws {
        let allergy = """
            <component><structuredBody><component><section><templateId root="2.16.840.1.113883.10.20.22.2.6.1"/><code code="48765-2"/>
            <entry><act><entryRelationship><observation negationInd="true"><value code="419199007" displayName="Allergy to substance"/>
            </observation></entryRelationship></act></entry></section></component>
            <component><section><templateId root="2.16.840.1.113883.10.20.22.2.2.1"/><entry><substanceAdministration negationInd="true">
            <id root="9.9"/><effectiveTime value="20130101"/><consumable><manufacturedProduct><manufacturedMaterial>
            <code code="140" codeSystem="2.16.840.1.113883.12.292" displayName="Influenza vaccine"/></manufacturedMaterial></manufacturedProduct></consumable>
            </substanceAdministration></entry></section></component></structuredBody></component>
            """
        let result = try CCDAReader().read(Self.wrap(allergy), name: "n.xml")
        #expect(result.negated == 1)
        #expect(result.record.entries.map(\.type) == [.immunization])
        #expect(result.record.entries.first?.status == "not-done")
        #expect(result.record.entries.first?.codes == ["CVX": ["140"]])
    }
}
