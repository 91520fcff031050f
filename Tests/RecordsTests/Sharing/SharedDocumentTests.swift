import Foundation
import HealthRecord
@testable import Records
import Testing
import TestSupport

/// The documents for a doctor (IPS, CCD) from a `SharedRecord`: sections, the absent/unknown entries of
/// empty required sections, escaping, notes, readings, struck entries; and the validators' verdicts.
@Suite("documents for a doctor")
struct SharedDocumentTests {
    static let now: Int64 = 1_700_000_000 // 2023-11-14

    static func item(_ type: EntryType, _ description: String?, id: String, at time: Int64? = nil, start: Int64? = nil, end: Int64? = nil,
                     status: String? = nil, value: Double? = nil, text: String? = nil, units: String? = nil, codes: String = "{}",
                     raw: String = "{}", note: String? = nil) -> SharedRecord.Item {
        SharedRecord.Item(entry: StoredEntry(id: id, type: type, description: description, date: time ?? start ?? end, time: time,
                                             startTime: start, endTime: end, status: status, value: value, textValue: text, units: units,
                                             codesJSON: codes), rawJSON: raw, note: note)
    }

    /// No allergies at all; markup and a control character in a description and a note; a code with no display.
    static let record = SharedRecord(
        person: .init(id: "p_1", name: "Ada Lovelace", firstName: "Ada", lastName: "Lovelace", gender: "F", birthdate: -4_861_684_800,
                      identifiers: [PatientIdentifier(system: "urn:oid:2.16.840.1.113883.19.5", value: "MRN-1")]),
        sources: ["files"],
        items: [
            item(.condition, "Asthma <script>alert(1)</script> & \u{1}wheeze", id: "e_c1", start: 1_000_000_000, status: "active",
                 codes: #"{"SNOMED-CT":["195967001"]}"#, note: "Worse in <b>winter</b>\u{7}"),
            item(.condition, "Appendicitis", id: "e_c2", start: 900_000_000, end: 900_500_000, status: "resolved",
                 codes: #"{"ICD-10-CM":["K35.80"]}"#),
            item(.medication, "Albuterol", id: "e_m1", start: 1_100_000_000, status: "active", text: "2 puffs as needed",
                 codes: #"{"RxNorm":["745679"]}"#),
            item(.result, "Potassium", id: "e_r1", at: 1_600_000_000, value: 4.1, units: "mmol/L", codes: #"{"LOINC":["2823-3"]}"#,
                 raw: #"{"resourceType":"Observation","code":{"coding":[{"system":"http://loinc.org","code":"2823-3","display":"Potassium [Moles/volume] in Serum or Plasma"}]}}"#),
            item(.result, "Old sodium", id: "e_r2", at: 1_000_000_000, value: 140, units: "mmol/L", codes: #"{"LOINC":["2951-2"]}"#),
            item(.immunization, "Influenza", id: "e_i1", at: 1_650_000_000, codes: #"{"CVX":["141"]}"#),
            item(.encounter, "Office visit", id: "e_enc", at: 1_650_000_000),
        ],
        readings: [Reading(id: "r_1", patientID: "p_1", kind: .bloodPressure, takenAt: 1_690_000_000, value: 128, secondValue: 82,
                           unit: "mm[Hg]", note: "after a walk", createdAt: 0, updatedAt: 0)],
        struck: [.result: 2])

    static func ips(_ record: SharedRecord = record, _ options: SharingOptions = SharingOptions(now: now)) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(IPSWriter.write(record, options: options))) as? [String: Any])
    }

    static func resources(_ bundle: [String: Any]) -> [[String: Any]] {
        (bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
    }

    static func sections(_ bundle: [String: Any]) -> [[String: Any]] {
        resources(bundle).first?["section"] as? [[String: Any]] ?? []
    }

    static func code(_ section: [String: Any]) -> String? {
        ((section["code"] as? [String: Any])?["coding"] as? [[String: Any]])?.first?["code"] as? String
    }

    @Test("IPS: Composition first, Patient, the sections in order; an empty required section holds IPS's absent/unknown code, never emptyReason")
    func ipsShape() throws {
        let bundle = try Self.ips()
        #expect(bundle["type"] as? String == "document")
        let resources = Self.resources(bundle)
        #expect(resources.prefix(2).map { $0["resourceType"] as? String } == ["Composition", "Patient"])
        let sections = Self.sections(bundle)
        // Problems, allergies, medications, immunizations, results, vital signs, past illness; no empty optional section.
        #expect(sections.map(Self.code) == ["11450-4", "48765-2", "10160-0", "11369-6", "30954-2", "8716-3", "11348-0"])
        #expect(sections.allSatisfy { $0["emptyReason"] == nil })
        let allergy = try #require(resources.first { $0["resourceType"] as? String == "AllergyIntolerance" })
        let coding = ((allergy["code"] as? [String: Any])?["coding"] as? [[String: Any]])?.first
        #expect(coding?["system"] as? String == "http://hl7.org/fhir/uv/ips/CodeSystem/absent-unknown-uv-ips")
        #expect(coding?["code"] as? String == "no-allergy-info")
        // The encounter is in no section; every section reference resolves to an entry of the Bundle.
        let urls = Set((bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["fullUrl"] as? String })
        let references = sections.flatMap { ($0["entry"] as? [[String: Any]] ?? []).compactMap { $0["reference"] as? String } }
        #expect(!references.isEmpty && references.allSatisfy(urls.contains))
        #expect(!resources.contains { $0["resourceType"] as? String == "Encounter" })
    }

    @Test("IPS: the struck entries counted, a reading patient-reported, a note as a note, a display kept, markup escaped in the narrative")
    func ipsContent() throws {
        let bundle = try Self.ips()
        let sections = Self.sections(bundle)
        let results = try #require(sections.first { Self.code($0) == "30954-2" })
        let resultsDiv = try #require((results["text"] as? [String: Any])?["div"] as? String)
        #expect(resultsDiv.contains("2 entries the person marked as wrong are left out."))
        let problems = try #require((sections.first { Self.code($0) == "11450-4" }?["text"] as? [String: Any])?["div"] as? String)
        #expect(problems.contains("Asthma &lt;script&gt;alert(1)&lt;/script&gt; &amp; \u{FFFD}wheeze"))
        #expect(problems.contains("Worse in &lt;b&gt;winter&lt;/b&gt;\u{FFFD}"))
        #expect(!problems.contains("<script") && !problems.unicodeScalars.contains { $0.value < 0x20 })
        let observations = Self.resources(bundle).filter { $0["resourceType"] as? String == "Observation" }
        let reported = observations.filter { $0["performer"] != nil }
        #expect(reported.count == 2) // systolic and diastolic
        #expect((reported.first?["valueQuantity"] as? [String: Any])?["value"] as? Double == 128)
        let potassium = try #require(observations.first { (($0["code"] as? [String: Any])?["text"] as? String) == "Potassium" })
        let coding = ((potassium["code"] as? [String: Any])?["coding"] as? [[String: Any]])?.first
        #expect(coding?["display"] as? String == "Potassium [Moles/volume] in Serum or Plasma")
        let asthma = try #require(Self.resources(bundle).first { ($0["resourceType"] as? String) == "Condition" && $0["note"] != nil })
        #expect((asthma["note"] as? [[String: Any]])?.first?["text"] as? String == "Worse in <b>winter</b>\u{FFFD}")
    }

    @Test("?sections= keeps the required three; ?since= limits results and vital signs; an unknown name is refused")
    func sectionsAndSince() throws {
        guard case .success(let chosen) = SharedSection.parseList("results") else { Issue.record("results is a section"); return }
        #expect(chosen == [.problems, .allergies, .medications, .results])
        #expect(SharedSection.parseList("results,nope") == .failure(SharedSection.UnknownSection(name: "nope")))
        let bundle = try Self.ips(Self.record, SharingOptions(sections: chosen, since: 1_500_000_000, now: Self.now))
        #expect(Self.sections(bundle).map(Self.code) == ["11450-4", "48765-2", "10160-0", "30954-2"])
        let observations = Self.resources(bundle).filter { $0["resourceType"] as? String == "Observation" }
        #expect(observations.count == 1) // the potassium; the old sodium is before `since`, vital signs not chosen
    }

    @Test("CCD: well-formed XML, the required sections present (empty ones nullFlavor NI), markup escaped, rows referenced")
    func ccdShape() throws {
        let bytes = CCDWriter.write(Self.record, options: SharingOptions(now: Self.now))
        let text = String(decoding: bytes, as: UTF8.self)
        // Well-formed: the project's own XML reader (libxml2) reads it, with its sections.
        let document = try Records.XMLDocument(bytes)
        // Problems, allergies (NI), medications, immunizations, results, vital signs, past illness, social history (NI).
        #expect(document.count("//*[local-name()='section']") == 8)
        #expect(text.contains("Asthma &lt;script&gt;alert(1)&lt;/script&gt; &amp; \u{FFFD}wheeze"))
        #expect(!text.contains("<script") && !text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        #expect(text.contains(#"<section nullFlavor="NI">"#)) // no allergies
        for loinc in ["48765-2", "10160-0", "11450-4", "30954-2", "8716-3", "29762-2", "11348-0", "11369-6"] {
            #expect(text.contains(#"code="\#(loinc)""#), "section \(loinc)")
        }
        #expect(text.contains(#"<tr ID="s1r1">"#) && text.contains(##"<reference value="#s1r1"/>"##))
        #expect(text.contains("2.16.840.1.113883.10.20.22.4.64")) // the note, a Comment Activity
        #expect(text.contains("2 entries the person marked as wrong are left out."))
    }

    @Test("codes: the store's canonical JSON read byte by byte, anything else by the JSON reader, codes trimmed")
    func codes() {
        #expect(SharedCodeSystems.plainCodes(#"{"LOINC":["8480-6"],"SNOMED-CT":["1","2"]}"#)
                == [SharedCode(system: "LOINC", code: "8480-6"), SharedCode(system: "SNOMED-CT", code: "1"), SharedCode(system: "SNOMED-CT", code: "2")])
        #expect(SharedCodeSystems.plainCodes("{}") == [])
        #expect(SharedCodeSystems.plainCodes(#"{"A":["x\"y"]}"#) == nil) // an escape: not plain
        #expect(SharedCodeSystems.plainCodes(#"{"A":["x"]} "#) == nil)
        #expect(SharedCodeSystems.codes(json: #"{"A":["x\"y"," 46008-9 ",""]}"#, raw: "{}")
                == [SharedCode(system: "A", code: "x\"y"), SharedCode(system: "A", code: "46008-9")])
        #expect(MarkupText.clean("  plain  ") == "plain" && MarkupText.clean("a\u{1}b") == "a\u{FFFD}b" && MarkupText.clean(" \t ") == nil)
        #expect(MarkupText.escaped("<a href='x'>&\u{FFFE}") == "&lt;a href=&apos;x&apos;&gt;&amp;\u{FFFD}")
    }

    @Test("both validators pass the documents of a person with no allergies and markup in their text",
          .enabled(if: SharedValidators.ips.available && SharedValidators.ccda.available, SharedValidators.ips.skipReason))
    func validators() throws {
        let folder = TemporaryDirectory()
        try folder.file("ips.json", bytes: IPSWriter.write(Self.record, options: SharingOptions(now: Self.now)))
        try folder.file("ccd.xml", bytes: CCDWriter.write(Self.record, options: SharingOptions(now: Self.now)))
        let ips = try SharedValidators.validateIPS(folder.file("ips.json"))
        #expect(ips.passed, "\(ips.report)")
        let ccda = try SharedValidators.validateCCDA(folder.file("ccd.xml"))
        #expect(ccda.passed, "\(ccda.report)")
    }
}
