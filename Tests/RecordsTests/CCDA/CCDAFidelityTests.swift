import Foundation
@testable import Records
import HealthRecord
import TestSupport
import Testing

/// Every statement of a document accounted for; ids as evidence, not identity; every observation of an
/// act; and the hard inputs: written out here as small documents.
@Suite("C-CDA: every statement accounted for")
struct CCDAFidelityTests {
    /// A document of the given sections (each `(LOINC, templateId, entries XML)`).
    static func document(_ sections: [(String, String, String)], id: String = "doc1") -> [UInt8] {
        let body = sections.map { loinc, template, entries in
            """
            <component><section><templateId root="\(template)"/><code code="\(loinc)" codeSystem="2.16.840.1.113883.6.1"/>
            <title>\(loinc)</title><text>narrative</text>\(entries)</section></component>
            """
        }.joined()
        return Array("""
            <?xml version="1.0"?>
            <ClinicalDocument xmlns="urn:hl7-org:v3" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
            <id root="2.16.840.1.113883.19.5" extension="\(id)"/><effectiveTime value="20200101"/>
            <recordTarget><patientRole><id root="2.16.840.1.113883.19.5" extension="1"/><patient><name><given>Test</given>
            <family>Fidelity</family></name><birthTime value="19700101"/></patient></patientRole></recordTarget>
            <component><structuredBody>\(body)</structuredBody></component></ClinicalDocument>
            """.utf8)
    }

    static func read(_ bytes: [UInt8]) throws -> CCDAReader.Result {
        let result = try CCDAReader().read(bytes, name: "test")
        #expect(result.accounting.adds)
        return result
    }

    static let problems = ("11450-4", "2.16.840.1.113883.10.20.22.2.5.1")
    static let allergies = ("48765-2", "2.16.840.1.113883.10.20.22.2.6.1")
    static let results = ("30954-2", "2.16.840.1.113883.10.20.22.2.3.1")
    static let medications = ("10160-0", "2.16.840.1.113883.10.20.22.2.1.1")
    static let encounters = ("46240-8", "2.16.840.1.113883.10.20.22.2.22.1")
    static let procedures = ("47519-4", "2.16.840.1.113883.10.20.22.2.7.1")

    static func problem(_ code: String, _ name: String, id: String = #"<id root="1.2.3" extension="same"/>"#, time: String = "20150101") -> String {
        """
        <entryRelationship typeCode="SUBJ"><observation classCode="OBS" moodCode="EVN">
        <templateId root="2.16.840.1.113883.10.20.22.4.4"/>\(id)<code code="55607006" codeSystem="2.16.840.1.113883.6.96"/>
        <effectiveTime><low value="\(time)"/></effectiveTime>
        <value xsi:type="CD" code="\(code)" codeSystem="2.16.840.1.113883.6.96" displayName="\(name)"/></observation></entryRelationship>
        """
    }

    static func concern(_ observations: String) -> String {
        #"<entry><act classCode="ACT" moodCode="EVN"><templateId root="2.16.840.1.113883.10.20.22.4.3"/><id root="1.2.3" extension="act"/>"#
            + #"<code code="CONC" codeSystem="2.16.840.1.113883.5.6"/><statusCode code="active"/>"# + observations + "</act></entry>"
    }

    static func result(_ code: String, _ value: String, unit: String = "mg/dL", id: String = #"<id root="1.2.3" extension="r"/>"#,
                       time: String = "20150101") -> String {
        """
        <observation classCode="OBS" moodCode="EVN"><templateId root="2.16.840.1.113883.10.20.22.4.2"/>\(id)
        <code code="\(code)" codeSystem="2.16.840.1.113883.6.1" displayName="Test \(code)"/><statusCode code="completed"/>
        <effectiveTime value="\(time)"/><value xsi:type="PQ" value="\(value)" unit="\(unit)"/></observation>
        """
    }

    @Test("six problems of one concern, all with one id (as MDOffice writes them): six conditions, each known by its content")
    func oneIDManyProblems() throws {
        let observations = (1...6).map { Self.problem("1000\($0)", "Problem \($0)") }.joined()
        let result = try Self.read(Self.document([(Self.problems.0, Self.problems.1, Self.concern(observations))]))
        let conditions = result.record.entries.filter { $0.type == .condition }
        #expect(conditions.count == 6)
        #expect(Set(conditions.map(\.id)).count == 6)
        #expect(conditions.allSatisfy { $0.sourceID == "1.2.3|same" })
        #expect(result.accounting.elements == 6 && result.accounting.imported == 6 && result.accounting.merged == 0)
        #expect(result.warnings.contains { $0.contains("share their id") })
    }

    @Test("two allergies of one act: two allergies; the same allergy twice: one, merged")
    func allergiesOfOneAct() throws {
        func allergy(_ code: String, _ name: String) -> String {
            """
            <entryRelationship typeCode="SUBJ"><observation classCode="OBS" moodCode="EVN">
            <templateId root="2.16.840.1.113883.10.20.22.4.7"/><id root="1.2.3" extension="a"/>
            <code code="ASSERTION" codeSystem="2.16.840.1.113883.5.4"/><effectiveTime><low value="20100101"/></effectiveTime>
            <value xsi:type="CD" code="419199007" codeSystem="2.16.840.1.113883.6.96"/>
            <participant typeCode="CSM"><participantRole classCode="MANU"><playingEntity classCode="MMAT">
            <code code="\(code)" codeSystem="2.16.840.1.113883.6.88" displayName="\(name)"/></playingEntity></participantRole></participant>
            </observation></entryRelationship>
            """
        }
        let act = Self.concern(allergy("7980", "Penicillin G") + allergy("2670", "Codeine") + allergy("2670", "Codeine"))
        let result = try Self.read(Self.document([(Self.allergies.0, Self.allergies.1, act)]))
        let allergies = result.record.entries.filter { $0.type == .allergy }
        #expect(Set(allergies.map(\.description)) == ["Penicillin G", "Codeine"])
        #expect(result.accounting.elements == 3 && result.accounting.imported == 2 && result.accounting.merged == 1)
    }

    @Test("an organizer's results, some sharing an id: every result; one said twice: merged")
    func organizerResults() throws {
        let components = [Self.result("2345-7", "90"), Self.result("2160-0", "1.1"), Self.result("2951-2", "140"),
                          Self.result("2951-2", "140")].map { "<component>\($0)</component>" }.joined()
        let entry = #"<entry><organizer classCode="BATTERY" moodCode="EVN"><id root="1.2.3" extension="panel"/>"#
            + #"<code code="24323-8" codeSystem="2.16.840.1.113883.6.1"/><statusCode code="completed"/>"# + components + "</organizer></entry>"
        let result = try Self.read(Self.document([(Self.results.0, Self.results.1, entry)]))
        #expect(result.record.entries.filter { $0.type == .result }.count == 3)
        #expect(result.accounting.merged == 1 && result.accounting.imported == 3)
    }

    @Test("an id a newer document gives to a different fact is not an update; the same fact under it is")
    func acrossDocuments() throws {
        let first = try Self.read(Self.document([(Self.problems.0, Self.problems.1, Self.concern(Self.problem("195967001", "Asthma")))]))
        let other = try Self.read(Self.document([(Self.problems.0, Self.problems.1, Self.concern(Self.problem("44054006", "Diabetes")))], id: "doc2"))
        let same = try Self.read(Self.document([(Self.problems.0, Self.problems.1,
                                                 Self.concern(Self.problem("195967001", "Asthma", time: "20160101")))], id: "doc3"))
        let asthma = try #require(first.record.entries.first?.id)
        #expect(other.record.entries.first?.id != asthma)
        #expect(same.record.entries.first?.id == asthma)
    }

    @Test("a medication's indication and an encounter's diagnosis: conditions when the problem list lacks them, merged when it has them")
    func statedConditions() throws {
        let medication = """
            <entry><substanceAdministration classCode="SBADM" moodCode="EVN"><templateId root="2.16.840.1.113883.10.20.22.4.16"/>
            <id root="1.2.3" extension="m1"/><statusCode code="active"/><effectiveTime xsi:type="IVL_TS"><low value="20150101"/></effectiveTime>
            <consumable><manufacturedProduct><manufacturedMaterial><code code="197361" codeSystem="2.16.840.1.113883.6.88"
            displayName="Amlodipine 5 MG"/></manufacturedMaterial></manufacturedProduct></consumable>
            <entryRelationship typeCode="RSON"><observation classCode="OBS" moodCode="EVN"><templateId root="2.16.840.1.113883.10.20.22.4.19"/>
            <code code="404684003" codeSystem="2.16.840.1.113883.6.96"/>
            <value xsi:type="CD" code="38341003" codeSystem="2.16.840.1.113883.6.96" displayName="Hypertension"/></observation></entryRelationship>
            </substanceAdministration></entry>
            """
        let encounter = """
            <entry><encounter classCode="ENC" moodCode="EVN"><templateId root="2.16.840.1.113883.10.20.22.4.49"/><id root="1.2.3" extension="e1"/>
            <code code="99213" codeSystem="2.16.840.1.113883.6.12" displayName="Office visit"/><effectiveTime value="20150301"/>
            <entryRelationship typeCode="COMP"><act classCode="ACT" moodCode="EVN"><templateId root="2.16.840.1.113883.10.20.22.4.80"/>
            <code code="29308-4" codeSystem="2.16.840.1.113883.6.1"/>\(Self.problem("195967001", "Asthma", id: ""))
            \(Self.problem("68566005", "Urinary tract infection", id: ""))</act></entryRelationship></encounter></entry>
            """
        let result = try Self.read(Self.document([
            (Self.problems.0, Self.problems.1, Self.concern(Self.problem("195967001", "Asthma"))),
            (Self.medications.0, Self.medications.1, medication), (Self.encounters.0, Self.encounters.1, encounter),
        ]))
        let conditions = Set(result.record.entries.filter { $0.type == .condition }.compactMap(\.description))
        #expect(conditions == ["Asthma", "Hypertension", "Urinary tract infection"])
        // Asthma, the medication, the encounter, its two diagnoses (one merged), the indication.
        #expect(result.accounting.elements == 6 && result.accounting.merged == 1 && result.accounting.imported == 5)
    }

    @Test("results nested in a procedure: results of their own")
    func resultsInProcedures() throws {
        let procedure = """
            <entry><procedure classCode="PROC" moodCode="EVN"><templateId root="2.16.840.1.113883.10.20.22.4.14"/><id root="1.2.3" extension="p1"/>
            <code code="90105005" codeSystem="2.16.840.1.113883.6.96" displayName="Biopsy of skin"/><effectiveTime value="20150401"/>
            <entryRelationship typeCode="COMP">\(Self.result("33717-0", "1", unit: "1"))</entryRelationship></procedure></entry>
            """
        let result = try Self.read(Self.document([(Self.procedures.0, Self.procedures.1, procedure)]))
        #expect(result.record.entries.map(\.type).sorted { $0.rawValue < $1.rawValue } == [.procedure, .result])
    }

    @Test("an act with no observation: left out with a warning; a negated problem: left out, negated")
    func emptyAct() throws {
        let negated = Self.problem("44054006", "Diabetes").replacingOccurrences(of: #"<observation classCode="OBS""#,
                                                                                with: #"<observation negationInd="true" classCode="OBS""#)
        let result = try Self.read(Self.document([(Self.problems.0, Self.problems.1, Self.concern("") + Self.concern(negated))]))
        #expect(result.record.entries.isEmpty)
        #expect(result.accounting.leftOut == ["no_statement": 1, "negated": 1])
        #expect(result.warnings.contains { $0.contains("no statement") })
    }

    @Test("an entry of a section the reader does not map: accounted for as left out")
    func unmappedSection() throws {
        let result = try Self.read(Self.document([("10157-6", "2.16.840.1.113883.10.20.22.2.15", "<entry><act classCode=\"ACT\" moodCode=\"EVN\"/></entry>")]))
        #expect(result.accounting.leftOut == ["unmapped_section": 1])
    }

    @Test("at the limit of statements in one entry: all read; over it: the rest left out with a warning, in bounded time")
    func statementsLimit() throws {
        let limit = CCDAEntryReader.maxStatementsPerEntry
        for count in [limit, 10_000] {
            let components = (0..<count).map { "<component>" + Self.result("2345-7", String($0), id: "") + "</component>" }.joined()
            let entry = #"<entry><organizer classCode="BATTERY" moodCode="EVN"><statusCode code="completed"/>"# + components + "</organizer></entry>"
            let result = try Self.read(Self.document([(Self.results.0, Self.results.1, entry)]))
            #expect(result.record.entries.count == limit)
            #expect(result.accounting.elements == count)
            #expect(result.accounting.leftOut == (count > limit ? ["over_limit": count - limit] : [:]))
            #expect(result.warnings.contains { $0.contains("statements") } == (count > limit))
        }
    }

    /// A procedure with results nested `depth` `entryRelationship`s deep.
    static func nested(_ depth: Int) -> [UInt8] {
        var nested = Self.result("2345-7", "1", id: "")
        for level in 0..<depth {
            nested = """
                <observation classCode="OBS" moodCode="EVN"><templateId root="2.16.840.1.113883.10.20.22.4.2"/>
                <code code="2345-\(level)" codeSystem="2.16.840.1.113883.6.1"/><effectiveTime value="20150101"/>
                <value xsi:type="PQ" value="\(level)" unit="mg"/><entryRelationship typeCode="COMP">\(nested)</entryRelationship></observation>
                """
        }
        return Self.document([(Self.procedures.0, Self.procedures.1, "<entry><procedure classCode=\"PROC\" moodCode=\"EVN\">"
                               + "<code code=\"1\" codeSystem=\"2.16.840.1.113883.6.96\" displayName=\"P\"/>"
                               + "<entryRelationship typeCode=\"COMP\">\(nested)</entryRelationship></procedure></entry>")])
    }

    @Test("entryRelationships nested 100 and 200 deep: the procedure and its results down to the reader's depth limit, the deeper ones left out and counted, with a warning",
          arguments: [100, 200])
    func deepNesting(depth: Int) throws {
        let result = try Self.read(Self.nested(depth))
        let limit = CCDAEntryReader.maxNestedDepth
        #expect(result.record.entries.filter { $0.type == .procedure }.count == 1)
        #expect(result.record.entries.filter { $0.type == .result }.count == limit)
        // The procedure and `depth + 1` results; those below the limit are left out, each counted.
        #expect(result.accounting.elements == 1 + depth + 1)
        #expect(result.accounting.leftOut == ["over_limit": depth + 1 - limit])
        #expect(result.accounting.adds)
        #expect(result.warnings.contains { $0.contains("nested more than \(limit)") })
    }

    @Test("at the reader's nesting limit: every nested result read, no warning")
    func nestedAtTheLimit() throws {
        let limit = CCDAEntryReader.maxNestedDepth
        let result = try Self.read(Self.nested(limit - 1))
        #expect(result.record.entries.filter { $0.type == .result }.count == limit)
        #expect(result.accounting.leftOut.isEmpty)
        #expect(!result.warnings.contains { $0.contains("nested") })
    }

    /// `depth` elements, each inside the one before.
    static func nestedElements(_ depth: Int) -> [UInt8] {
        Array((String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)).utf8)
    }

    @Test("XML nested to the depth limit parses; deeper is refused whole with the reason")
    func xmlDepthLimit() throws {
        let limit = XMLDocument.maximumDepth
        #expect(limit == 1_024, "libxml2's limit raised from its 256")
        _ = try XMLDocument(Self.nestedElements(limit))
        // libxml2 refuses the element that makes the stack deeper than the limit: one past it still parses.
        #expect {
            try XMLDocument(Self.nestedElements(limit + 2))
        } throws: { error in
            String(describing: error).contains("Excessive depth")
        }
        #expect {
            try CCDAReader().read(Self.nested(limit), name: "deep")
        } throws: { error in
            String(describing: error).lowercased().contains("depth")
        }
    }

    @Test("a medication's reaction: a condition noted as the medication's, merged with the same problem listed")
    func medicationReaction() throws {
        func medication(_ id: String, _ product: (String, String), _ reactionCode: String, _ reaction: String) -> String {
            """
            <entry><substanceAdministration classCode="SBADM" moodCode="EVN"><templateId root="2.16.840.1.113883.10.20.22.4.16"/>
            <id root="1.2.3" extension="\(id)"/><statusCode code="completed"/><effectiveTime xsi:type="IVL_TS"><low value="20150101"/></effectiveTime>
            <consumable><manufacturedProduct><manufacturedMaterial><code code="\(product.0)" codeSystem="2.16.840.1.113883.6.88"
            displayName="\(product.1)"/></manufacturedMaterial></manufacturedProduct></consumable>
            <entryRelationship typeCode="CAUS"><observation classCode="OBS" moodCode="EVN"><templateId root="2.16.840.1.113883.10.20.22.4.9"/>
            <code code="ASSERTION" codeSystem="2.16.840.1.113883.5.4"/><effectiveTime><low value="20150103"/></effectiveTime>
            <value xsi:type="CD" code="\(reactionCode)" codeSystem="2.16.840.1.113883.6.96" displayName="\(reaction)"/></observation></entryRelationship>
            </substanceAdministration></entry>
            """
        }
        let result = try Self.read(Self.document([
            (Self.problems.0, Self.problems.1, Self.concern(Self.problem("422587007", "Nausea"))),
            (Self.medications.0, Self.medications.1, medication("m1", ("308182", "Amoxicillin 250 MG"), "247472004", "Hives")
                + medication("m2", ("310965", "Ibuprofen 200 MG"), "422587007", "Nausea")),
        ]))
        let conditions = result.record.entries.filter { $0.type == .condition }
        #expect(Set(conditions.compactMap(\.description)) == ["Hives", "Nausea"])
        let hives = try #require(conditions.first { $0.description == "Hives" })
        #expect(hives.sourceNote == "A reaction to Amoxicillin 250 MG")
        #expect(hives.codes["SNOMED-CT"] == ["247472004"])
        #expect(hives.startTime != nil)
        // Nausea (listed), two medications, two reactions (Nausea merged into the listed one).
        #expect(result.accounting.elements == 5 && result.accounting.merged == 1 && result.accounting.imported == 4)
    }

    @Test("a unit that is not UCUM, an interpretation code of another system: imported, the unit kept as written, with a warning")
    func oddUnits() throws {
        let observation = Self.result("2345-7", "90", unit: "mg per dl").replacingOccurrences(
            of: "</observation>", with: #"<interpretationCode code="HIGH" codeSystem="9.9.9"/></observation>"#)
        let result = try Self.read(Self.document([(Self.results.0, Self.results.1, "<entry>\(observation)</entry>")]))
        let entry = try #require(result.record.entries.first)
        #expect(entry.value == 90 && entry.units == "mg per dl")
        #expect(result.warnings.contains { $0.contains("UCUM") })
        #expect(entry.interpretation == nil)
        #expect(result.warnings.contains { $0.contains("interpretation code that is not HL7's") && $0.contains("HIGH") })
    }

    @Test("a reference range in words only: the result imported with the words kept, and a warning; a plain range warns nothing")
    func rangeInWordsOnly() throws {
        func read(_ range: String) throws -> CCDAReader.Result {
            let observation = Self.result("2345-7", "90", unit: "mg/dL").replacingOccurrences(
                of: "</observation>", with: "<referenceRange><observationRange>\(range)</observationRange></referenceRange></observation>")
            return try Self.read(Self.document([(Self.results.0, Self.results.1, "<entry>\(observation)</entry>")]))
        }
        let words = try read("<text>M 13-18; F 12-16</text>")
        let entry = try #require(words.record.entries.first)
        #expect(entry.value == 90)
        #expect(entry.referenceRange?.text == "M 13-18; F 12-16" && entry.referenceRange?.low == nil)
        #expect(words.warnings.contains { $0.contains("reference range given only in words") })
        let plain = try read(#"<value xsi:type="IVL_PQ"><low value="70" unit="mg/dL"/><high value="99" unit="mg/dL"/></value>"#)
        #expect(plain.record.entries.first?.referenceRange?.high?.value == 99)
        #expect(!plain.warnings.contains { $0.contains("reference range") })
    }

    @Test("Kinsights' child record: its 35 vital-sign observations (weights all under one id, undated BMIs) reach the record",
          .enabled(if: SharedSamples.ccda.available, SharedSamples.ccda.skipReason))
    func kinsights() throws {
        let result = try Self.read(try SharedSamples.ccda.bytes("kinsights_phr_child_timmy_MESSY.xml"))
        let vitals = result.record.entries.filter { $0.type == .vitalSign }
        let byCodeAndTime = Set(vitals.map { CodeNormalisation.canonical($0.codes) + "@" + String($0.date ?? 0) })
        #expect(byCodeAndTime.count >= 24, "\(byCodeAndTime.count) distinct by code and time")
        #expect(vitals.filter { $0.codes["LOINC"] == ["3141-9"] }.count == 10)
        #expect(vitals.count == 33, "35 observations, 2 said twice")
    }

    @Test("the NIST ambulatory sample: six vital signs under one id, six entries",
          .enabled(if: SharedSamples.rhex.available, SharedSamples.rhex.skipReason))
    func nistVitals() throws {
        let result = try Self.read(try SharedSamples.rhex.bytes("hds_sample_ccda.xml"))
        let vitals = result.record.entries.filter { $0.type == .vitalSign }
        #expect(vitals.count == 6)
        #expect(Set(vitals.map(\.id)).count == 6)
    }

    @Test("HL7's CCD: its five immunizations (four under one id, two refused) and the problems its encounters state",
          .enabled(if: SharedSamples.ccda.available, SharedSamples.ccda.skipReason))
    func hl7CCD() throws {
        let result = try Self.read(try SharedSamples.ccda.bytes("hl7_ccda21_ccd1_full.xml"))
        var byType: [EntryType: Int] = [:]
        for entry in result.record.entries { byType[entry.type, default: 0] += 1 }
        #expect(result.record.entries.count == 42 && byType[.immunization] == 5 && byType[.condition] == 6)
        #expect(result.accounting.elements == 45 && result.accounting.leftOut == ["unmapped_section": 3])
        #expect(result.record.entries.filter { $0.type == .immunization && $0.status == "not-done" }.count == 2)
    }
}
