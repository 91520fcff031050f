import Foundation
@testable import Records
import HealthRecord
import Testing

/// What each format says about a result beyond its value (its reference range, its interpretation, its
/// note), that a person has died, and code values that say "no code".
@Suite("Reference ranges, interpretations, deceased, null-like codes: every format")
struct ResultDetailTests {
    // MARK: FHIR

    static let fhirPatient = #"{"resourceType":"Patient","id":"p1","identifier":[{"system":"urn:mrn","value":"42"}],"name":[{"given":["Ada"],"family":"Lovelace"}],"gender":"female","birthDate":"1815-12-10"MORE}"#

    static func fhir(_ resources: [String], patientExtra: String = "") throws -> PatientRecord {
        let patient = fhirPatient.replacingOccurrences(of: "MORE", with: patientExtra)
        let bundle = #"{"resourceType":"Bundle","type":"collection","entry":["# + ([patient] + resources).map { #"{"resource":\#($0)}"# }.joined(separator: ",") + "]}"
        let result = try FHIRReader().read(Array(bundle.utf8), name: "bundle.json")
        return try #require(result.patients.first?.record)
    }

    static func observation(_ extra: String, value: String = #""valueQuantity":{"value":6.3,"unit":"mmol/l","code":"mmol/L"}"#) -> String {
        #"{"resourceType":"Observation","id":"o1","status":"final","subject":{"reference":"Patient/p1"},"code":{"coding":[{"system":"http://loinc.org","code":"15074-8","display":"Glucose"}]},"effectiveDateTime":"2013-04-02",\#(value)\#(extra)}"#
    }

    @Test("FHIR: referenceRange low/high with units, interpretation H, the note kept")
    func fhirRangeAndInterpretation() throws {
        let record = try Self.fhir([Self.observation(#","interpretation":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation","code":"H","display":"High"}]}],"referenceRange":[{"low":{"value":3.1,"unit":"mmol/l"},"high":{"value":6.2,"unit":"mmol/l"}}],"note":[{"text":"Fasting sample."}]"#)])
        let entry = try #require(record.entries.first)
        #expect(entry.referenceRange == ReferenceRange(low: .init(value: 3.1, unit: "mmol/l"), high: .init(value: 6.2, unit: "mmol/l"), text: nil))
        #expect(entry.interpretation == "H")
        #expect(entry.sourceNote == "Fasting sample.")
    }

    @Test("FHIR: a range with text only gives its bounds when the text is one plain range, its text always")
    func fhirTextRange() throws {
        let plain = try Self.fhir([Self.observation(#","referenceRange":[{"text":"3.1 - 6.2 mmol/L"}]"#)]).entries[0]
        #expect(plain.referenceRange?.low?.value == 3.1 && plain.referenceRange?.high?.value == 6.2)
        #expect(plain.referenceRange?.high?.unit == "mmol/L" && plain.referenceRange?.text == "3.1 - 6.2 mmol/L")
        let bySex = try Self.fhir([Self.observation(#","referenceRange":[{"text":"M 13-18 g/dL; F 12-16 g/dL"}]"#)]).entries[0]
        #expect(bySex.referenceRange?.low == nil && bySex.referenceRange?.high == nil)
        #expect(bySex.referenceRange?.text == "M 13-18 g/dL; F 12-16 g/dL")
    }

    @Test("FHIR: an interpretation of another system is read by its words, else left out; none, none")
    func fhirOtherSystem() throws {
        let words = try Self.fhir([Self.observation(#","interpretation":[{"coding":[{"system":"urn:local","code":"HI!","display":"Critically high"}]}]"#)])
        #expect(words.entries[0].interpretation == "HH")
        let unknown = try Self.fhir([Self.observation(#","interpretation":[{"coding":[{"system":"urn:local","code":"Z9"}],"text":"see lab"}]"#)])
        #expect(unknown.entries[0].interpretation == nil)
        let none = try Self.fhir([Self.observation("")])
        #expect(none.entries[0].referenceRange == nil && none.entries[0].interpretation == nil && none.entries[0].sourceNote == nil)
    }

    @Test("FHIR: a range in words only and an interpretation of another system warn in the report, mapped whole or while written; plain ones warn nothing")
    func fhirWarnings() throws {
        let words = Self.observation(#","referenceRange":[{"text":"M 13-18 g/dL; F 12-16 g/dL"}]"#)
        let foreign = Self.observation(#","interpretation":[{"coding":[{"system":"urn:local","code":"Z9"}],"text":"see lab"}]"#)
            .replacingOccurrences(of: #""id":"o1""#, with: #""id":"o2""#)
        let plain = Self.observation(#","referenceRange":[{"text":"3.1 - 6.2 mmol/L"}],"interpretation":[{"coding":[{"code":"H"}]}]"#)
            .replacingOccurrences(of: #""id":"o1""#, with: #""id":"o3""#)
        let bundle = #"{"resourceType":"Bundle","type":"collection","entry":["#
            + ([Self.fhirPatient.replacingOccurrences(of: "MORE", with: ""), words, foreign, plain]).map { #"{"resource":\#($0)}"# }.joined(separator: ",") + "]}"
        let expected = ["a reference range given only in words: kept as its text, no value is flagged by it",
                        #"an interpretation code that is not HL7's ("Z9"): left out, the value kept"#]
        let whole = try #require(try FHIRReader().read(Array(bundle.utf8), name: "bundle.json").patients.first)
        #expect(whole.warnings == expected)
        #expect(whole.record?.entries.count == 3)
        let streamed = try #require(try FHIRReader(mapsWhileWritingFrom: 1).read(Array(bundle.utf8), name: "bundle.json").patients.first)
        let pending = try #require(streamed.pending)
        var tally = FHIRPendingEntries.Tally()
        #expect(try pending.entries(0..<pending.count, tally: &tally).count == 3)
        #expect(tally.notes.messages == expected)
        let quiet = #"{"resourceType":"Bundle","type":"collection","entry":["# + [Self.fhirPatient.replacingOccurrences(of: "MORE", with: ""), plain].map { #"{"resource":\#($0)}"# }.joined(separator: ",") + "]}"
        #expect(try FHIRReader().read(Array(quiet.utf8), name: "bundle.json").patients.first?.warnings == [])
    }

    @Test("FHIR: a component's own range, else the panel's")
    func fhirComponents() throws {
        let panel = #"{"resourceType":"Observation","id":"bp","status":"final","subject":{"reference":"Patient/p1"},"code":{"coding":[{"system":"http://loinc.org","code":"85354-9"}]},"effectiveDateTime":"2013-04-02","referenceRange":[{"high":{"value":200,"unit":"mm[Hg]"}}],"component":[{"code":{"coding":[{"system":"http://loinc.org","code":"8480-6","display":"Systolic"}]},"valueQuantity":{"value":150,"unit":"mm[Hg]"},"referenceRange":[{"high":{"value":120,"unit":"mm[Hg]"}}],"interpretation":[{"coding":[{"code":"H"}]}]},{"code":{"coding":[{"system":"http://loinc.org","code":"8462-4","display":"Diastolic"}]},"valueQuantity":{"value":70,"unit":"mm[Hg]"}}]}"#
        let entries = try Self.fhir([panel]).entries.sorted { ($0.description ?? "") > ($1.description ?? "") }
        #expect(entries.count == 2)
        #expect(entries[0].description == "Systolic" && entries[0].referenceRange?.high?.value == 120 && entries[0].interpretation == "H")
        #expect(entries[1].referenceRange?.high?.value == 200 && entries[1].interpretation == nil)
    }

    @Test("FHIR: deceasedDateTime says that and when; deceasedBoolean that; neither, nothing")
    func fhirDeceased() throws {
        let dated = try Self.fhir([], patientExtra: #","deceasedDateTime":"2019-05-14""#)
        #expect(dated.deceased == true && dated.deceasedDate == FHIRDate.parse("2019-05-14")?.0)
        let flagged = try Self.fhir([], patientExtra: #","deceasedBoolean":true"#)
        #expect(flagged.deceased == true && flagged.deceasedDate == nil)
        let alive = try Self.fhir([], patientExtra: #","deceasedBoolean":false"#)
        #expect(alive.deceased == false)
        #expect(try Self.fhir([]).deceased == nil)
    }

    @Test("FHIR: null-like code values are no code", arguments: ["Unknown", "UNK", "NA", "null", ""])
    func fhirNullLikeCodes(code: String) throws {
        let med = #"{"resourceType":"MedicationStatement","id":"m1","status":"active","subject":{"reference":"Patient/p1"},"medicationCodeableConcept":{"coding":[{"system":"http://www.nlm.nih.gov/research/umls/rxnorm","code":"\#(code)"}],"text":"Aspirin"},"effectiveDateTime":"2013-04-02"}"#
        let entry = try #require(try Self.fhir([med]).entries.first)
        #expect(entry.codes.isEmpty)
        #expect(entry.description == "Aspirin")
    }

    // MARK: C-CDA

    static func ccda(observation: String, patientExtra: String = "") throws -> PatientRecord {
        let document = """
            <?xml version="1.0"?>
            <ClinicalDocument xmlns="urn:hl7-org:v3" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:sdtc="urn:hl7-org:sdtc">
            <templateId root="2.16.840.1.113883.10.20.22.1.2"/>
            <id root="2.16.840.1.113883.19.5" extension="doc"/><effectiveTime value="20200101"/>
            <recordTarget><patientRole><id root="2.16.840.1.113883.19.5" extension="1"/><patient><name><given>Test</given>
            <family>Person</family></name><birthTime value="19370101"/>\(patientExtra)</patient></patientRole></recordTarget>
            <component><structuredBody><component><section><templateId root="2.16.840.1.113883.10.20.22.2.3.1"/>
            <code code="30954-2" codeSystem="2.16.840.1.113883.6.1"/><title>Results</title><text><content ID="c1">Drawn after breakfast.</content></text>
            <entry><organizer classCode="BATTERY" moodCode="EVN"><statusCode code="completed"/>
            <component>\(observation)</component></organizer></entry>
            </section></component></structuredBody></component></ClinicalDocument>
            """
        return try CCDAReader().read(Array(document.utf8), name: "doc.xml").record
    }

    static func ccdaObservation(_ inner: String, value: String = #"<value xsi:type="PQ" value="12.5" unit="g/dL"/>"#) -> String {
        """
        <observation classCode="OBS" moodCode="EVN"><templateId root="2.16.840.1.113883.10.20.22.4.2"/>
        <id root="1.2.3" extension="r1"/><code code="718-7" codeSystem="2.16.840.1.113883.6.1" displayName="Hemoglobin"/>
        <statusCode code="completed"/><effectiveTime value="20120810"/>\(value)\(inner)</observation>
        """
    }

    @Test("C-CDA: interpretationCode and the normal referenceRange's IVL_PQ; a comment activity as the note")
    func ccdaRange() throws {
        let record = try Self.ccda(observation: Self.ccdaObservation("""
            <interpretationCode code="L" codeSystem="2.16.840.1.113883.5.83"/>
            <entryRelationship typeCode="SUBJ" inversionInd="true"><act classCode="ACT" moodCode="EVN">
            <templateId root="2.16.840.1.113883.10.20.22.4.64"/><code code="48767-8" codeSystem="2.16.840.1.113883.6.1"/>
            <text><reference value="#c1"/></text></act></entryRelationship>
            <referenceRange><observationRange><interpretationCode code="HH" codeSystem="2.16.840.1.113883.5.83"/>
            <value xsi:type="IVL_PQ"><low value="20" unit="g/dL"/></value></observationRange></referenceRange>
            <referenceRange><observationRange><text>13.5-17.5 g/dL</text>
            <value xsi:type="IVL_PQ"><low value="13.5" unit="g/dL"/><high value="17.5" unit="g/dL"/></value>
            <interpretationCode code="N" codeSystem="2.16.840.1.113883.5.83"/></observationRange></referenceRange>
            """))
        let entry = try #require(record.entries.first)
        #expect(entry.value == 12.5 && entry.interpretation == "L")
        #expect(entry.referenceRange == ReferenceRange(low: .init(value: 13.5, unit: "g/dL"), high: .init(value: 17.5, unit: "g/dL"), text: "13.5-17.5 g/dL"))
        #expect(entry.sourceNote == "Drawn after breakfast.")
    }

    @Test("C-CDA: a range with text only, units that are not UCUM, an interpretation of another system")
    func ccdaOddRanges() throws {
        let record = try Self.ccda(observation: Self.ccdaObservation("""
            <interpretationCode code="ZZ" codeSystem="1.2.3.4" displayName="Above high normal"/>
            <referenceRange><observationRange><text>normal: 4 to 6 gm per deciliter</text></observationRange></referenceRange>
            """, value: #"<value xsi:type="PQ" value="7" unit="gm per deciliter"/>"#))
        let entry = try #require(record.entries.first)
        #expect(entry.interpretation == "H")
        #expect(entry.referenceRange?.text == "normal: 4 to 6 gm per deciliter" && entry.referenceRange?.low == nil)
        #expect(entry.units == "gm per deciliter")
    }

    @Test("C-CDA: sdtc:deceasedInd and sdtc:deceasedTime")
    func ccdaDeceased() throws {
        let dated = try Self.ccda(observation: Self.ccdaObservation(""),
                                  patientExtra: #"<sdtc:deceasedInd value="true"/><sdtc:deceasedTime value="20190514"/>"#)
        #expect(dated.deceased == true && dated.deceasedDate == HL7Time.parse("20190514"))
        let flagged = try Self.ccda(observation: Self.ccdaObservation(""), patientExtra: #"<sdtc:deceasedInd value="true"/>"#)
        #expect(flagged.deceased == true && flagged.deceasedDate == nil)
        let alive = try Self.ccda(observation: Self.ccdaObservation(""), patientExtra: #"<sdtc:deceasedInd value="false"/>"#)
        #expect(alive.deceased == false)
        #expect(try Self.ccda(observation: Self.ccdaObservation("")).deceased == nil)
    }

    @Test("C-CDA: a null-like code is no code")
    func ccdaNullLikeCode() throws {
        let record = try Self.ccda(observation: """
            <observation classCode="OBS" moodCode="EVN"><id root="1.2.3" extension="r2"/>
            <code code="UNK" codeSystem="2.16.840.1.113883.6.1" displayName="Hemoglobin"/><effectiveTime value="20120810"/>
            <value xsi:type="PQ" value="12.5" unit="g/dL"/></observation>
            """)
        let entry = try #require(record.entries.first)
        #expect(entry.codes.isEmpty && entry.description == "Hemoglobin")
    }

    // MARK: RHEx

    @Test("RHEx: referenceRange as text or {low, high}, interpretation {code, code_system}; expired and deathdate")
    func rhex() throws {
        let record = try parseRecord("""
            {"_id": "r1", "first": "Barry", "last": "Berry", "birthdate": -1000000000, "expired": true, "deathdate": 1125956803,
             "results": [
               {"_id": "a", "description": "Glucose", "time": 1300000000, "value": {"scalar": "130", "units": "mg/dL"},
                "referenceRange": "70-99 mg/dL", "interpretation": {"code": "H", "code_system": "HITSP C80 Observation Status"}},
               {"_id": "b", "description": "HDL", "time": 1300000000, "value": {"scalar": "50", "units": "mg/dL"},
                "reference_range": {"low": {"scalar": "40", "units": "mg/dL"}}, "interpretation": "N"},
               {"_id": "c", "description": "Other", "time": 1300000000, "referenceRange": null, "interpretation": null,
                "codes": {"RxNorm": ["Unknown"], "LOINC": ["UNK", "1234-5"]}}
             ]}
            """)
        #expect(record.deceased == true && record.deceasedDate == 1125956803)
        let byID = Dictionary(uniqueKeysWithValues: record.entries.map { ($0.sourceID ?? "", $0) })
        #expect(byID["a"]?.referenceRange?.high == ReferenceRange.Bound(value: 99, unit: "mg/dL"))
        #expect(byID["a"]?.interpretation == "H")
        #expect(byID["b"]?.referenceRange?.low == ReferenceRange.Bound(value: 40, unit: "mg/dL") && byID["b"]?.interpretation == "N")
        #expect(byID["c"]?.referenceRange == nil && byID["c"]?.interpretation == nil)
        #expect(byID["c"]?.codes == ["LOINC": ["1234-5"]])
    }

    @Test("RHEx: expired false, a deathdate of null: not deceased")
    func rhexAlive() throws {
        let record = try parseRecord(#"{"_id": "r1", "first": "A", "last": "B", "expired": false, "deathdate": null}"#)
        #expect(record.deceased == false && record.deceasedDate == nil)
        #expect(try parseRecord(#"{"_id": "r2", "first": "A", "last": "B"}"#).deceased == nil)
    }

    // MARK: The model

    @Test("a range places a value below, within or above it; not across units; nothing without bounds")
    func placement() {
        let range = ReferenceRange(low: .init(value: 70, unit: "mg/dL"), high: .init(value: 99, unit: "mg/dL"), text: nil)!
        #expect(range.place(60, unit: "mg/dl") == .below)
        #expect(range.place(80, unit: "mg/dL") == .within)
        #expect(range.place(130, unit: nil) == .above)
        #expect(range.place(130, unit: "mmol/L") == nil)
        #expect(ReferenceRange(low: nil, high: nil, text: "negative")!.place(1, unit: nil) == nil)
        #expect(ReferenceRange(low: nil, high: nil, text: "  ") == nil)
        #expect(ReferenceRange.fromText("<200 mg/dL")?.high == .init(value: 200, unit: "mg/dL"))
        #expect(ReferenceRange.fromText("> 40")?.low == .init(value: 40, unit: nil))
        #expect(ReferenceRange.fromText("0.5 to 1.2")?.low?.value == 0.5)
        #expect(ReferenceRange.fromText("9-3")?.low == nil)
        let long = String(repeating: "x", count: ReferenceRange.textLimit + 1)
        #expect(ReferenceRange.fromText(long)?.text?.count == ReferenceRange.textLimit)
    }
}
