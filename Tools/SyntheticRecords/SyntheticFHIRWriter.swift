import Records
import HealthRecord

/// Writes a synthetic person as FHIR R4 resources (Patient, Encounter, Observation, Condition,
/// MedicationRequest, Procedure, Immunization, AllergyIntolerance) in a bundle's entries, so that the
/// demo and the benchmarks go through the FHIR reader with data hreaderd did not write for itself.
///
/// The life course is kept believable across the record (`LifeCourse`). Acute conditions resolve, short
/// medications stop (`completed`), some chronic ones end (`inactive`, `stopped`).
struct SyntheticFHIRWriter {
    let patient: SyntheticPatient
    let factory: SyntheticEntryFactory
    /// What real records carry beyond the basics (`SyntheticRecords.writeFHIRBundle(lifelike:)`): results'
    /// normal ranges and flags.
    var lifelike = false
    /// When the person died, for a record that says so.
    var deceased: Int64?

    static let systems: [String: String] = [
        "SNOMED-CT": "http://snomed.info/sct", "LOINC": "http://loinc.org", "RxNorm": "http://www.nlm.nih.gov/research/umls/rxnorm",
        "CVX": "http://hl7.org/fhir/sid/cvx", "ICD-10-CM": "http://hl7.org/fhir/sid/icd-10-cm", "ICD-9-CM": "http://hl7.org/fhir/sid/icd-9-cm",
        "CPT": "http://www.ama-assn.org/go/cpt",
    ]
    static let categorySystem = "http://terminology.hl7.org/CodeSystem/observation-category"

    var patientID: String { patient.recordID }

    /// Writes the person's bundle entries (each `{"fullUrl", "resource"}`) into an open `entry` array;
    /// `flush` is called between resources. Returns the number of resources written.
    @discardableResult
    func writeEntries(into writer: inout SyntheticJSONWriter, flush: (inout SyntheticJSONWriter) throws -> Void) rethrows -> Int {
        var written = 1
        entry(into: &writer, type: "Patient", id: patientID) { writePatient(&$0) }
        var lifeCourse = LifeCourse()
        for type in [EntryType.encounter, .condition, .medication, .allergy, .immunization, .procedure, .result, .vitalSign] {
            for index in 0..<(factory.counts[type] ?? 0) {
                var item = factory.entry(type, index)
                lifeCourse.settle(&item)
                let id = "\(patientID)-\(type.rawValue)-\(index)"
                entry(into: &writer, type: resourceType(type), id: id) { write(item, into: &$0) }
                written += 1
                try flush(&writer)
            }
        }
        return written
    }

    private func resourceType(_ type: EntryType) -> String {
        switch type {
        case .encounter: return "Encounter"
        case .condition: return "Condition"
        case .medication: return "MedicationRequest"
        case .allergy: return "AllergyIntolerance"
        case .immunization: return "Immunization"
        case .procedure: return "Procedure"
        case .result, .vitalSign, .socialHistory: return "Observation"
        case .careGoal: return "Goal"
        case .medicalEquipment: return "Device"
        }
    }

    private func entry(into writer: inout SyntheticJSONWriter, type: String, id: String, _ body: (inout SyntheticJSONWriter) -> Void) {
        writer.beginObject()
        writer.key("fullUrl"); writer.string("urn:uuid:\(id)")
        writer.key("resource")
        writer.beginObject()
        writer.key("resourceType"); writer.string(type)
        writer.key("id"); writer.string(id)
        body(&writer)
        writer.endObject()
        writer.endObject()
    }

    private func writePatient(_ writer: inout SyntheticJSONWriter) {
        writer.key("identifier"); writer.beginArray(); writer.beginObject()
        writer.key("type"); writer.beginObject(); writer.key("coding"); writer.beginArray(); writer.beginObject()
        writer.key("system"); writer.string("http://terminology.hl7.org/CodeSystem/v2-0203")
        writer.key("code"); writer.string("MR")
        writer.endObject(); writer.endArray(); writer.endObject()
        writer.key("system"); writer.string("urn:hreaderd:synthetic-mrn")
        writer.key("value"); writer.string(patient.medicalRecordNumber)
        writer.endObject(); writer.endArray()
        writer.key("name"); writer.beginArray(); writer.beginObject()
        writer.key("use"); writer.string("official")
        writer.key("family"); writer.string(patient.lastName)
        writer.key("given"); writer.beginArray(); writer.string(patient.firstName); writer.endArray()
        writer.endObject(); writer.endArray()
        writer.key("gender"); writer.string(patient.gender == "F" ? "female" : "male")
        writer.key("birthDate"); writer.string(String(Self.dateTime(patient.birthdate).prefix(10)))
        if let deceased { writer.key("deceasedDateTime"); writer.string(Self.dateTime(deceased)) }
    }

    /// A result's normal range and its flag, as a lab report gives them.
    private func labReport(_ item: SyntheticEntry, into writer: inout SyntheticJSONWriter) {
        guard let loinc = item.codes.first(where: { $0.system == "LOINC" })?.value else { return }
        let code: String?
        switch item.measurement {
        case let .number(value, decimals, units)?:
            // The flag of the value as it is written (rounded), so that it agrees with what a reader compares.
            var scale = 1.0
            for _ in 0..<decimals { scale *= 10 }
            code = LabRanges.interpretation(loinc: loinc, value: (value * scale).rounded() / scale)
            if let range = LabRanges.normal[loinc] {
                writer.key("referenceRange"); writer.beginArray(); writer.beginObject()
                for (key, bound) in [("low", range.low), ("high", range.high)] {
                    guard let bound else { continue }
                    writer.key(key); writer.beginObject()
                    writer.key("value"); writer.decimal(bound, decimals: decimals)
                    if let units { writer.key("unit"); writer.string(units); writer.key("system"); writer.string("http://unitsofmeasure.org") }
                    writer.endObject()
                }
                writer.endObject(); writer.endArray()
            }
        case let .text(answer)?:
            code = LabRanges.interpretation(loinc: loinc, answer: answer)
            if let normal = LabRanges.normalAnswer[loinc] {
                writer.key("referenceRange"); writer.beginArray(); writer.beginObject()
                writer.key("text"); writer.string(normal)
                writer.endObject(); writer.endArray()
            }
        case nil:
            code = nil
        }
        guard let code else { return }
        writer.key("interpretation"); writer.beginArray(); writer.beginObject(); writer.key("coding"); writer.beginArray(); writer.beginObject()
        writer.key("system"); writer.string("http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation")
        writer.key("code"); writer.string(code)
        writer.key("display"); writer.string(LabRanges.words[code] ?? code)
        writer.endObject(); writer.endArray(); writer.endObject(); writer.endArray()
    }

    private func subject(_ writer: inout SyntheticJSONWriter, key: String = "subject") {
        writer.key(key); writer.beginObject(); writer.key("reference"); writer.string("urn:uuid:\(patientID)"); writer.endObject()
    }

    private func concept(_ codes: [Vocabulary.Code], text: String, into writer: inout SyntheticJSONWriter) {
        writer.beginObject()
        writer.key("coding"); writer.beginArray()
        for code in codes {
            writer.beginObject()
            writer.key("system"); writer.string(Self.systems[code.system] ?? code.system)
            writer.key("code"); writer.string(code.value)
            writer.key("display"); writer.string(text)
            writer.endObject()
        }
        writer.endArray()
        writer.key("text"); writer.string(text)
        writer.endObject()
    }

    private func status(_ writer: inout SyntheticJSONWriter, key: String, _ code: String) {
        writer.key(key); writer.beginObject(); writer.key("coding"); writer.beginArray(); writer.beginObject()
        writer.key("code"); writer.string(code)
        writer.endObject(); writer.endArray(); writer.endObject()
    }

    private func write(_ item: SyntheticEntry, into writer: inout SyntheticJSONWriter) {
        switch item.type {
        case .encounter:
            writer.key("status"); writer.string("finished")
            writer.key("class"); writer.beginObject(); writer.key("code"); writer.string("AMB"); writer.endObject()
            writer.key("type"); writer.beginArray(); concept(item.codes, text: item.description, into: &writer); writer.endArray()
            subject(&writer)
            let start = item.startTime ?? item.time ?? 0
            writer.key("period"); writer.beginObject()
            writer.key("start"); writer.string(Self.dateTime(start))
            writer.key("end"); writer.string(Self.dateTime(item.endTime ?? start + 1_800))
            writer.endObject()
        case .condition:
            status(&writer, key: "clinicalStatus", item.status?.rawValue ?? "active")
            writer.key("code"); concept(item.codes, text: item.description, into: &writer)
            subject(&writer)
            writer.key("onsetDateTime"); writer.string(Self.dateTime(item.startTime ?? item.time ?? 0))
            if let end = item.endTime { writer.key("abatementDateTime"); writer.string(Self.dateTime(end)) }
        case .medication:
            writer.key("status"); writer.string(item.endTime == nil ? "active" : (item.status == .completed ? "completed" : "stopped"))
            writer.key("intent"); writer.string("order")
            writer.key("medicationCodeableConcept"); concept(item.codes, text: item.description, into: &writer)
            subject(&writer)
            writer.key("authoredOn"); writer.string(Self.dateTime(item.startTime ?? 0))
            if let end = item.endTime {
                writer.key("dispenseRequest"); writer.beginObject(); writer.key("validityPeriod"); writer.beginObject()
                writer.key("start"); writer.string(Self.dateTime(item.startTime ?? 0))
                writer.key("end"); writer.string(Self.dateTime(end))
                writer.endObject(); writer.endObject()
            }
        case .allergy:
            status(&writer, key: "clinicalStatus", item.status == .inactive ? "inactive" : "active")
            writer.key("code"); concept(item.codes, text: item.description, into: &writer)
            subject(&writer, key: "patient")
            writer.key("recordedDate"); writer.string(Self.dateTime(item.startTime ?? 0))
            if let reaction = item.reaction {
                writer.key("reaction"); writer.beginArray(); writer.beginObject()
                let name = Vocabulary.reactionNames[reaction.value] ?? "Reaction"
                writer.key("manifestation"); writer.beginArray(); concept([reaction], text: name, into: &writer); writer.endArray()
                if let severity = item.severity, let word = ["255604002": "mild", "6736007": "moderate", "24484000": "severe"][severity.value] {
                    writer.key("severity"); writer.string(word)
                }
                writer.endObject(); writer.endArray()
            }
        case .immunization:
            writer.key("status"); writer.string("completed")
            writer.key("vaccineCode"); concept(item.codes, text: item.description, into: &writer)
            subject(&writer, key: "patient")
            writer.key("occurrenceDateTime"); writer.string(Self.dateTime(item.time ?? 0))
        case .procedure:
            writer.key("status"); writer.string("completed")
            writer.key("code"); concept(item.codes, text: item.description, into: &writer)
            subject(&writer)
            writer.key("performedDateTime"); writer.string(Self.dateTime(item.time ?? 0))
        case .result, .vitalSign, .socialHistory, .careGoal, .medicalEquipment:
            writer.key("status"); writer.string("final")
            writer.key("category"); writer.beginArray(); writer.beginObject(); writer.key("coding"); writer.beginArray(); writer.beginObject()
            writer.key("system"); writer.string(Self.categorySystem)
            writer.key("code"); writer.string(item.type == .vitalSign ? "vital-signs" : "laboratory")
            writer.endObject(); writer.endArray(); writer.endObject(); writer.endArray()
            writer.key("code"); concept(item.codes, text: item.description, into: &writer)
            subject(&writer)
            writer.key("effectiveDateTime"); writer.string(Self.dateTime(item.time ?? item.startTime ?? 0))
            switch item.measurement {
            case let .number(value, decimals, units)?:
                writer.key("valueQuantity"); writer.beginObject()
                writer.key("value"); writer.decimal(value, decimals: decimals)
                if let units { writer.key("unit"); writer.string(units); writer.key("system"); writer.string("http://unitsofmeasure.org") }
                writer.endObject()
            case let .text(text)?:
                writer.key("valueString"); writer.string(text)
            case nil:
                break
            }
            if lifelike, item.type == .result { labReport(item, into: &writer) }
        }
    }

    /// `YYYY-MM-DDThh:mm:ssZ` of epoch seconds, without Foundation (`HealthRecord.CivilDate`).
    static func dateTime(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondsOfDay = Int(seconds - days * 86_400)
        let date = CivilDate(epochDays: days), (year, month, day) = (date.year, date.month, date.day)
        return zeroPadded(Int(year), 4) + "-" + zeroPadded(Int(month), 2) + "-" + zeroPadded(Int(day), 2) + "T"
            + zeroPadded(secondsOfDay / 3600, 2) + ":" + zeroPadded(secondsOfDay / 60 % 60, 2) + ":" + zeroPadded(secondsOfDay % 60, 2) + "Z"
    }
}

/// The date form the FHIR writer uses, for tests.
public enum SyntheticFHIRDates {
    public static func dateTime(_ seconds: Int64) -> String { SyntheticFHIRWriter.dateTime(seconds) }
}

extension SyntheticRecords {
    /// The family as one FHIR R4 `collection` Bundle, each person with `entries` entries, whose history
    /// ends at `end` (the demo passes today). Streams to `sink` in chunks of about `chunkBytes`.
    ///
    /// `lifelike` (the demo): what real records carry. Results have their normal range and flag (some out
    /// of range); each person has entries in proportion to the years of their record and their health
    /// (`entries` is a middle-aged adult's; a child has fewer, the grandparent more); and the grandparent
    /// has died, their record ending then. Without it (tests, benchmarks) every person has `entries`.
    public func writeFHIRBundle(entries: Int, end: Int64 = SyntheticRecords.referenceEnd, pretty: Bool = false,
                                members: Int? = nil, lifelike: Bool = false, chunkBytes: Int = 1 << 20,
                                to sink: ([UInt8]) throws -> Void) rethrows {
        var writer = SyntheticJSONWriter(pretty: pretty, capacity: chunkBytes + 4096)
        writer.beginObject()
        writer.key("resourceType"); writer.string("Bundle")
        writer.key("type"); writer.string("collection")
        writer.key("entry"); writer.beginArray()
        for person in family().prefix(members ?? Int.max) {
            let life = lifelike ? Self.lifelike(person, seed: seed, entries: entries, end: end) : (entries: entries, end: end, deceased: nil)
            let factory = SyntheticEntryFactory(seed: seed, patient: person, counts: SyntheticRecords.sectionCounts(entries: life.entries), end: life.end)
            let fhir = SyntheticFHIRWriter(patient: person, factory: factory, lifelike: lifelike, deceased: life.deceased)
            try fhir.writeEntries(into: &writer) { writer in
                if writer.bytes.count >= chunkBytes { try sink(writer.take()) }
            }
        }
        writer.endArray()
        writer.endObject()
        writer.finishDocument()
        try sink(writer.take())
    }

    public func fhirBundle(entries: Int, end: Int64 = SyntheticRecords.referenceEnd, members: Int? = nil, lifelike: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        writeFHIRBundle(entries: entries, end: end, members: members, lifelike: lifelike) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// A middle-aged adult's record spans this many years: `entries` is theirs.
    static let typicalRecordYears = 35.0

    /// A person's entries, the end of their record and their death, for a lifelike family: the grandparent
    /// died one to five years before `end` (the day from a stream of its own, so the family stays the same);
    /// entries follow the years the record spans, times how much care a person of that age needs (a child
    /// less, the grandparent more), at least 40.
    static func lifelike(_ person: SyntheticPatient, seed: UInt64, entries: Int, end: Int64) -> (entries: Int, end: Int64, deceased: Int64?) {
        var deceased: Int64?
        var last = end
        if person.relationship == .parent {
            var random = RandomSource(seed: seed, Stream.death, UInt64(person.index))
            let died = end - Int64(random.int(in: 365...5 * 365)) * 86_400
            // Not before the record could hold a few years of them.
            if died > SyntheticEntryFactory.earliestRecord + 5 * 365 * 86_400 {
                let day = died - died % 86_400 + 15 * 3_600
                (deceased, last) = (day, day)
            }
        }
        let start = max(person.birthdate + 30 * 86_400, SyntheticEntryFactory.earliestRecord)
        let years = max(Double(last - start) / SyntheticEntryFactory.year, 0.5)
        let care: Double = switch person.relationship {
        case .child: 0.6
        case .parent: 1.6
        case .primary, .spouse: 1.0
        }
        return (max(40, Int((Double(entries) * years / typicalRecordYears * care).rounded())), last, deceased)
    }
}
