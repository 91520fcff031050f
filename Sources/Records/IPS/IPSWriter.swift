import HealthRecord

/// A person's record as an HL7 International Patient Summary (IPS 1.1.0): a FHIR R4 `document` Bundle whose
/// Composition comes first, then the Patient, then every resource a section references, all by `urn:uuid:`
/// (so each reference resolves inside the Bundle). Problems, Allergies and Medications are always there; an
/// empty one holds one resource coded with IPS's absent/unknown code (IPS 1.1.0 forbids `emptyReason`).
/// `docs/export-mapping.md` gives the mapping as tables.
public enum IPSWriter {
    static let loinc = "http://loinc.org"
    static let absentUnknown = "http://hl7.org/fhir/uv/ips/CodeSystem/absent-unknown-uv-ips"
    static let ucum = "http://unitsofmeasure.org"
    static let observationInterpretation = "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation"

    /// The document's bytes (UTF-8 JSON).
    public static func write(_ record: SharedRecord, options: SharingOptions) -> [UInt8] {
        let content = SharedContent(record: record, options: options)
        var writer = IPSBundleWriter(content: content)
        return writer.write()
    }
}

/// A `urn:uuid:` made from what a resource is (SHA-256 of its parts, as a version-5-like UUID): the same
/// entry has the same uuid in every export of the person.
enum ResourceUUID {
    static func make(_ parts: [String]) -> String {
        var input: [UInt8] = []
        for part in parts {
            input.append(contentsOf: part.utf8)
            input.append(0x1f)
        }
        var bytes = Array(SHA256.hash(input).prefix(16))
        bytes[6] = bytes[6] & 0x0f | 0x50
        bytes[8] = bytes[8] & 0x3f | 0x80
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xf)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

struct IPSBundleWriter {
    let content: SharedContent
    private var json: JSONWriter
    private let patientUUID: String
    /// A section's resources' uuids, parallel to its facts; one absent/unknown uuid for an empty required one.
    private var uuids: [[String]] = []

    init(content: SharedContent) {
        self.content = content
        json = JSONWriter(capacity: 4096 + content.record.items.count * 1200)
        patientUUID = ResourceUUID.make(["ips", "patient", content.record.person.id])
        let person = content.record.person.id
        uuids = content.parts.map { part in
            if part.facts.isEmpty { return part.section.isRequired ? [ResourceUUID.make(["ips", "absent", part.section.name, person])] : [] }
            return part.facts.map { ResourceUUID.make(["ips", person, $0.id]) }
        }
    }

    /// Parts shown: the required ones always, the others when they have entries (an IPS section without
    /// entries is not allowed).
    private var shownParts: [Int] { content.parts.indices.filter { !uuids[$0].isEmpty } }

    mutating func write() -> [UInt8] {
        let now = content.options.now
        let person = content.record.person
        json.beginObject()
        json.key("resourceType"); json.string("Bundle")
        json.key("id"); json.string(ResourceUUID.make(["ips", "bundle", person.id, String(now)]))
        json.key("identifier"); json.beginObject()
        json.key("system"); json.string("urn:ietf:rfc:3986")
        json.key("value"); json.string("urn:uuid:" + ResourceUUID.make(["ips", "document", person.id, String(now)]))
        json.endObject()
        json.key("type"); json.string("document")
        json.key("timestamp"); json.string(SharedTime.fhir(now))
        json.key("entry"); json.beginArray()
        composition()
        patient()
        for index in shownParts {
            let part = content.parts[index]
            if part.facts.isEmpty {
                absent(part.section, uuid: uuids[index][0])
                continue
            }
            for (fact, uuid) in zip(part.facts, uuids[index]) { resource(fact, in: part.section, uuid: uuid) }
        }
        json.endArray()
        json.endObject()
        return json.takeBytes()
    }

    // MARK: Composition and Patient

    private mutating func composition() {
        let now = content.options.now
        let person = content.record.person
        let uuid = ResourceUUID.make(["ips", "composition", person.id, String(now)])
        begin("Composition", uuid: uuid)
        json.key("status"); json.string("final")
        json.key("type"); concept([(IPSWriter.loinc, "60591-5", "Patient summary Document")], text: nil)
        json.key("subject"); reference(patientUUID)
        json.key("date"); json.string(SharedTime.fhir(now))
        // The person hands over their own record: they are its author.
        json.key("author"); json.beginArray(); reference(patientUUID); json.endArray()
        json.key("title"); json.string("International Patient Summary")
        json.key("section"); json.beginArray()
        for index in shownParts {
            let part = content.parts[index]
            json.beginObject()
            json.key("title"); json.string(part.section.title)
            json.key("code"); concept([(IPSWriter.loinc, part.section.loinc, part.section.loincDisplay)], text: nil)
            json.key("text"); json.beginObject()
            json.key("status"); json.string("generated")
            json.key("div"); json.string(narrative(part))
            json.endObject()
            json.key("entry"); json.beginArray()
            for uuid in uuids[index] { reference(uuid) }
            json.endArray()
            json.endObject()
        }
        json.endArray()
        end()
    }

    /// The section's table as XHTML (FHIR's narrative rules: a `div`, basic elements, no scripts or styles).
    private func narrative(_ part: SharedContent.Part) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(256 + part.facts.count * 160)
        out.append(contentsOf: "<div xmlns=\"http://www.w3.org/1999/xhtml\">".utf8)
        if part.facts.isEmpty {
            out.append(contentsOf: "<p>".utf8)
            MarkupText.append(SharedNarrative.nothing(part.section), to: &out)
            out.append(contentsOf: "</p>".utf8)
        } else {
            let table = SharedNarrative(part)
            out.append(contentsOf: "<table><thead><tr>".utf8)
            for header in table.headers {
                out.append(contentsOf: "<th>".utf8); MarkupText.append(header, to: &out); out.append(contentsOf: "</th>".utf8)
            }
            out.append(contentsOf: "</tr></thead><tbody>".utf8)
            for row in table.rows {
                out.append(contentsOf: "<tr>".utf8)
                for cell in row {
                    out.append(contentsOf: "<td>".utf8); MarkupText.append(cell, to: &out); out.append(contentsOf: "</td>".utf8)
                }
                out.append(contentsOf: "</tr>".utf8)
            }
            out.append(contentsOf: "</tbody></table>".utf8)
        }
        if let sentence = SharedContent.struckSentence(part.struck) {
            out.append(contentsOf: "<p>".utf8); MarkupText.append(sentence, to: &out); out.append(contentsOf: "</p>".utf8)
        }
        out.append(contentsOf: "</div>".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func patient() {
        let person = content.record.person
        begin("Patient", uuid: patientUUID)
        var identifiers = person.identifiers.filter { !$0.value.isEmpty }
        if let mrn = person.medicalRecordNumber, !identifiers.contains(where: { $0.value == mrn }) {
            identifiers.append(PatientIdentifier(system: "", value: mrn))
        }
        if !identifiers.isEmpty {
            json.key("identifier"); json.beginArray()
            for identifier in identifiers {
                guard let value = MarkupText.clean(identifier.value) else { continue }
                json.beginObject()
                if identifier.system.contains(":"), !identifier.system.contains(where: \.isWhitespace) {
                    json.key("system"); json.string(identifier.system)
                }
                json.key("value"); json.string(value)
                json.endObject()
            }
            json.endArray()
        }
        json.key("name"); json.beginArray(); json.beginObject()
        json.key("text"); json.string(MarkupText.clean(person.name) ?? "(no name)")
        if let family = MarkupText.clean(person.lastName) { json.key("family"); json.string(family) }
        if let given = MarkupText.clean(person.firstName) {
            json.key("given"); json.beginArray()
            for part in given.split(separator: " ") { json.string(String(part)) }
            json.endArray()
        }
        json.endObject(); json.endArray()
        if let gender = Self.gender(person.gender) { json.key("gender"); json.string(gender) }
        if let birthdate = person.birthdate { json.key("birthDate"); json.string(SharedTime.fhirDate(birthdate)) }
        if let died = person.deceasedDate {
            json.key("deceasedDateTime"); json.string(SharedTime.fhir(died))
        } else if person.deceased {
            json.key("deceasedBoolean"); json.bool(true)
        }
        end()
    }

    static func gender(_ word: String?) -> String? {
        switch word?.lowercased() {
        case "m"?, "male"?: return "male"
        case "f"?, "female"?: return "female"
        case "other"?, "o"?: return "other"
        case "unknown"?, "u"?, "un"?: return "unknown"
        default: return nil
        }
    }

    // MARK: Section resources

    /// The absent/unknown resource of an empty required section (as IPS's `bundle-no-info-required-sections`).
    private mutating func absent(_ section: SharedSection, uuid: String) {
        switch section {
        case .allergies:
            begin("AllergyIntolerance", uuid: uuid)
            json.key("clinicalStatus"); concept([("http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical", "active", nil)], text: nil)
            json.key("code"); concept([(IPSWriter.absentUnknown, "no-allergy-info", "No information about allergies")], text: nil)
            json.key("patient"); reference(patientUUID)
        case .medications:
            begin("MedicationStatement", uuid: uuid)
            json.key("status"); json.string("unknown")
            json.key("medicationCodeableConcept")
            concept([(IPSWriter.absentUnknown, "no-medication-info", "No information about medications")], text: nil)
            json.key("subject"); reference(patientUUID)
            absentPeriod()
        default:
            begin("Condition", uuid: uuid)
            json.key("clinicalStatus"); concept([("http://terminology.hl7.org/CodeSystem/condition-clinical", "active", nil)], text: nil)
            json.key("code"); concept([(IPSWriter.absentUnknown, "no-problem-info", "No information about problems")], text: nil)
            json.key("subject"); reference(patientUUID)
        }
        end()
    }

    private mutating func absentPeriod() {
        json.key("effectivePeriod"); json.beginObject()
        json.key("extension"); json.beginArray(); json.beginObject()
        json.key("url"); json.string("http://hl7.org/fhir/StructureDefinition/data-absent-reason")
        json.key("valueCode"); json.string("unknown")
        json.endObject(); json.endArray()
        json.endObject()
    }

    private mutating func resource(_ fact: SharedFact, in section: SharedSection, uuid: String) {
        switch section {
        case .problems, .pastIllness: condition(fact, uuid: uuid)
        case .allergies: allergy(fact, uuid: uuid)
        case .medications: medication(fact, uuid: uuid)
        case .immunizations: immunization(fact, uuid: uuid)
        case .results, .vitalSigns: observation(fact, vital: section == .vitalSigns, uuid: uuid)
        case .procedures: procedure(fact, uuid: uuid)
        case .devices: device(fact, uuid: uuid)
        case .planOfCare: carePlan(fact, uuid: uuid)
        }
    }

    private mutating func condition(_ fact: SharedFact, uuid: String) {
        begin("Condition", uuid: uuid)
        json.key("clinicalStatus")
        concept([("http://terminology.hl7.org/CodeSystem/condition-clinical", IPSStatus.condition(fact), nil)], text: nil)
        json.key("code"); code(fact)
        json.key("subject"); reference(patientUUID)
        if let onset = fact.time ?? fact.start { json.key("onsetDateTime"); json.string(SharedTime.fhir(onset)) }
        if let end = fact.end { json.key("abatementDateTime"); json.string(SharedTime.fhir(end)) }
        note(fact)
        end()
    }

    private mutating func allergy(_ fact: SharedFact, uuid: String) {
        begin("AllergyIntolerance", uuid: uuid)
        json.key("clinicalStatus")
        concept([("http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical", IPSStatus.allergy(fact), nil)], text: nil)
        json.key("code"); code(fact)
        json.key("patient"); reference(patientUUID)
        if let onset = fact.time ?? fact.start ?? fact.end { json.key("onsetDateTime"); json.string(SharedTime.fhir(onset)) }
        note(fact)
        if let reaction = MarkupText.clean(AllergyDetails.read(fact.rawJSON).reaction) {
            json.key("reaction"); json.beginArray(); json.beginObject()
            json.key("manifestation"); json.beginArray(); json.beginObject(); json.key("text"); json.string(reaction); json.endObject(); json.endArray()
            json.endObject(); json.endArray()
        }
        end()
    }

    private mutating func medication(_ fact: SharedFact, uuid: String) {
        begin("MedicationStatement", uuid: uuid)
        json.key("status"); json.string(IPSStatus.medication(fact))
        json.key("medicationCodeableConcept"); code(fact)
        json.key("subject"); reference(patientUUID)
        if fact.start == nil, fact.end == nil, let time = fact.time {
            json.key("effectiveDateTime"); json.string(SharedTime.fhir(time))
        } else if fact.start != nil || fact.end != nil {
            period("effectivePeriod", start: fact.time ?? fact.start, end: fact.end)
        } else {
            absentPeriod()
        }
        note(fact)
        if let directions = fact.textValue {
            json.key("dosage"); json.beginArray(); json.beginObject(); json.key("text"); json.string(directions); json.endObject(); json.endArray()
        }
        end()
    }

    private mutating func immunization(_ fact: SharedFact, uuid: String) {
        begin("Immunization", uuid: uuid)
        json.key("status"); json.string(fact.status == "not-done" ? "not-done" : "completed")
        json.key("vaccineCode"); code(fact)
        json.key("patient"); reference(patientUUID)
        if let date = fact.date {
            json.key("occurrenceDateTime"); json.string(SharedTime.fhir(date))
        } else {
            json.key("occurrenceString"); json.string("unknown")
        }
        note(fact)
        end()
    }

    private mutating func observation(_ fact: SharedFact, vital: Bool, uuid: String) {
        begin("Observation", uuid: uuid)
        json.key("status"); json.string(IPSStatus.observation(fact))
        if vital {
            json.key("category"); json.beginArray()
            concept([("http://terminology.hl7.org/CodeSystem/observation-category", "vital-signs", "Vital Signs")], text: nil)
            json.endArray()
        }
        json.key("code"); code(fact)
        json.key("subject"); reference(patientUUID)
        if let time = fact.time {
            json.key("effectiveDateTime"); json.string(SharedTime.fhir(time))
        } else if fact.start != nil || fact.end != nil {
            period("effectivePeriod", start: fact.start, end: fact.end)
        }
        if fact.patientReported {
            // Taken by the person themselves: they are its performer.
            json.key("performer"); json.beginArray(); reference(patientUUID); json.endArray()
        }
        if let value = fact.value, value.isFinite {
            json.key("valueQuantity"); json.beginObject()
            json.key("value"); json.number(value)
            if let units = fact.units {
                json.key("unit"); json.string(units)
                if !units.utf8.contains(0x20) {
                    json.key("system"); json.string(IPSWriter.ucum)
                    json.key("code"); json.string(units)
                }
            }
            json.endObject()
        } else if let text = fact.textValue {
            json.key("valueString"); json.string(text)
        }
        if let code = fact.interpretation {
            json.key("interpretation"); json.beginArray(); json.beginObject(); json.key("coding"); json.beginArray(); json.beginObject()
            json.key("system"); json.string(IPSWriter.observationInterpretation)
            json.key("code"); json.string(code)
            json.endObject(); json.endArray(); json.endObject(); json.endArray()
        }
        note(fact)
        if let range = fact.referenceRange { referenceRange(range) }
        end()
    }

    private mutating func procedure(_ fact: SharedFact, uuid: String) {
        begin("Procedure", uuid: uuid)
        json.key("status"); json.string(IPSStatus.procedure(fact))
        json.key("code"); code(fact)
        json.key("subject"); reference(patientUUID)
        if let time = fact.time {
            json.key("performedDateTime"); json.string(SharedTime.fhir(time))
        } else if fact.start != nil || fact.end != nil {
            period("performedPeriod", start: fact.start, end: fact.end)
        }
        note(fact)
        end()
    }

    /// A DeviceUseStatement with the device contained in it: a Device of its own in the Bundle would be read
    /// back as a second entry.
    private mutating func device(_ fact: SharedFact, uuid: String) {
        begin("DeviceUseStatement", uuid: uuid)
        json.key("contained"); json.beginArray(); json.beginObject()
        json.key("resourceType"); json.string("Device")
        json.key("id"); json.string("device")
        json.key("type"); code(fact)
        json.endObject(); json.endArray()
        json.key("status"); json.string(IPSStatus.deviceUse(fact))
        json.key("subject"); reference(patientUUID)
        if let time = fact.time {
            json.key("timingDateTime"); json.string(SharedTime.fhir(time))
        } else if fact.start != nil || fact.end != nil {
            period("timingPeriod", start: fact.start, end: fact.end)
        }
        json.key("device"); json.beginObject(); json.key("reference"); json.string("#device"); json.endObject()
        note(fact)
        end()
    }

    /// A plan as a CarePlan (the IPS Plan of care section's resource): its codes as the category, its name as the title.
    private mutating func carePlan(_ fact: SharedFact, uuid: String) {
        begin("CarePlan", uuid: uuid)
        json.key("status"); json.string(IPSStatus.carePlan(fact))
        json.key("intent"); json.string("plan")
        if !fact.codes.isEmpty { json.key("category"); json.beginArray(); code(fact); json.endArray() }
        json.key("title"); json.string(fact.name)
        json.key("subject"); reference(patientUUID)
        if fact.start != nil || fact.time != nil || fact.end != nil {
            period("period", start: fact.time ?? fact.start, end: fact.end)
        }
        note(fact)
        end()
    }

    // MARK: Pieces

    private mutating func begin(_ type: String, uuid: String) {
        json.beginObject()
        json.key("fullUrl"); json.string("urn:uuid:" + uuid)
        json.key("resource"); json.beginObject()
        json.key("resourceType"); json.string(type)
        json.key("id"); json.string(uuid)
    }

    private mutating func end() {
        json.endObject()
        json.endObject()
    }

    private mutating func reference(_ uuid: String) {
        json.beginObject(); json.key("reference"); json.string("urn:uuid:" + uuid); json.endObject()
    }

    private mutating func period(_ key: String, start: Int64?, end: Int64?) {
        json.key(key); json.beginObject()
        if let start { json.key("start"); json.string(SharedTime.fhir(start)) }
        if let end { json.key("end"); json.string(SharedTime.fhir(end)) }
        json.endObject()
    }

    /// An observation's normal range as the source gave it: `low`, `high` (SimpleQuantity) and its `text`.
    private mutating func referenceRange(_ range: ReferenceRange) {
        let text = range.text.flatMap(MarkupText.clean)
        // A range says something (FHIR's obs-3): a bound or its text.
        guard range.low != nil || range.high != nil || text != nil else { return }
        json.key("referenceRange"); json.beginArray(); json.beginObject()
        for (key, bound) in [("low", range.low), ("high", range.high)] {
            guard let bound, bound.value.isFinite else { continue }
            json.key(key); json.beginObject()
            json.key("value"); json.number(bound.value)
            if let unit = bound.unit {
                json.key("unit"); json.string(unit)
                if !unit.utf8.contains(0x20) {
                    json.key("system"); json.string(IPSWriter.ucum)
                    json.key("code"); json.string(unit)
                }
            }
            json.endObject()
        }
        if let text { json.key("text"); json.string(text) }
        json.endObject(); json.endArray()
    }

    private mutating func note(_ fact: SharedFact) {
        guard let note = fact.note else { return }
        json.key("note"); json.beginArray(); json.beginObject(); json.key("text"); json.string(note); json.endObject(); json.endArray()
    }

    /// The fact's codes (those in a system with a URI) and its name as the text.
    private mutating func code(_ fact: SharedFact) {
        // A FHIR code has single spaces inside at most.
        let codings = fact.codes.compactMap { code in
            code.uri.map { uri in
                let single = code.code.utf8.contains(where: { $0 <= 0x20 }) ? code.code.split(whereSeparator: \.isWhitespace).joined(separator: " ") : code.code
                return (uri, single, code.display.flatMap(MarkupText.clean))
            }
        }
        concept(codings, text: fact.name)
    }

    /// A CodeableConcept; `coding` only when there is one (FHIR forbids an empty array).
    private mutating func concept(_ codings: [(String, String, String?)], text: String?) {
        json.beginObject()
        if !codings.isEmpty {
            json.key("coding"); json.beginArray()
            for (system, code, display) in codings {
                json.beginObject()
                json.key("system"); json.string(system)
                json.key("code"); json.string(code)
                if let display { json.key("display"); json.string(display) }
                json.endObject()
            }
            json.endArray()
        }
        if let text { json.key("text"); json.string(text) }
        json.endObject()
    }
}
