import Records
import HealthRecord

/// Writes a synthetic patient's record in one record generation's shape, so the real parser meets
/// both: Gen 1 as hReader's bundled records have it (hreader_hs_henry_smith.json: `_id` strings,
/// `_type`, `value: {scalar, units}` with string scalars, `status` words, alphabetical members), and
/// Gen 2 as later HDS servers wrote it (hds_v2.1.1_rosa.json, hds_v4_barry_berry.json: `{"$oid"}`
/// record id, numeric MRN, no entry `_id`s, `values: [{scalar, units}]` with numbers, `status_code`).
struct SyntheticRecordWriter {
    let shape: SyntheticRecords.Shape
    let patient: SyntheticPatient
    let factory: SyntheticEntryFactory

    /// Writes the whole record; `flush` is called between entries so a caller can stream the bytes.
    func write(into writer: inout SyntheticJSONWriter, flush: (inout SyntheticJSONWriter) throws -> Void) rethrows {
        writer.beginObject()
        switch shape {
        case .gen1: writeGen1Demographics(&writer)
        case .gen2: writeGen2Demographics(&writer)
        }
        var lifeCourse = LifeCourse()
        for type in sectionOrder {
            writer.key(type.section)
            writer.beginArray()
            for index in 0..<(factory.counts[type] ?? 0) {
                var entry = factory.entry(type, index)
                lifeCourse.settle(&entry)
                switch shape {
                case .gen1: writeGen1(entry, into: &writer)
                case .gen2: writeGen2(entry, into: &writer)
                }
                try flush(&writer)
            }
            writer.endArray()
        }
        writer.endObject()
        writer.finishDocument()
    }

    private var sectionOrder: [EntryType] {
        switch shape {
        case .gen1: return [.allergy, .condition, .encounter, .immunization, .medication, .procedure, .result, .vitalSign]
        case .gen2: return [.encounter, .condition, .vitalSign, .procedure, .result, .medication, .immunization, .allergy]
        }
    }

    // MARK: Gen 1

    private func writeGen1Demographics(_ writer: inout SyntheticJSONWriter) {
        var random = RandomSource(seed: factory.seed, Stream.patient, UInt64(patient.index), 1)
        writer.key("_id"); writer.string(patient.recordID)
        writer.key("birthdate"); writer.integer(patient.birthdate)
        writer.key("effective_time"); writer.integer(SyntheticRecords.referenceEnd)
        writer.key("ethnicity")
        codedValue(random.pick(Vocabulary.ethnicities), codeSetKey: "code_set", codeSet: "CDC-RE", into: &writer)
        writer.key("first"); writer.string(patient.firstName)
        writer.key("gender"); writer.string(patient.gender)
        writer.key("languages"); writer.beginArray(); writer.string("en-US"); writer.endArray()
        writer.key("last"); writer.string(patient.lastName)
        writer.key("medical_record_number"); writer.string(patient.medicalRecordNumber)
        writer.key("race")
        codedValue(random.pick(Vocabulary.races), codeSetKey: "code_set", codeSet: "CDC-RE", into: &writer)
        writer.key("version"); writer.integer(1)
    }

    private func writeGen1(_ entry: SyntheticEntry, into writer: inout SyntheticJSONWriter) {
        writer.beginObject()
        writer.key("_id"); writer.string(entryID(entry))
        writer.key("_type"); writer.string(gen1TypeName(entry.type))
        writer.key("codes"); codes(entry.codes, into: &writer)
        writer.key("description"); writer.string(entry.description)
        let spansTime = entry.type == .condition || entry.type == .medication || entry.type == .allergy || entry.type == .encounter
        if spansTime {
            writer.key("end_time"); optionalInteger(entry.endTime, into: &writer)
        }
        if let reaction = entry.reaction {
            writer.key("reaction"); codedValue(reaction.value, codeSetKey: "codeSystem", codeSet: reaction.system, into: &writer)
        }
        if let severity = entry.severity {
            writer.key("severity"); codedValue(severity.value, codeSetKey: "codeSystem", codeSet: severity.system, into: &writer)
        }
        if spansTime {
            writer.key("start_time"); optionalInteger(entry.startTime, into: &writer)
        }
        if let status = entry.status, entry.type != .encounter, entry.type != .immunization {
            writer.key("status"); writer.string(status.rawValue)
        }
        writer.key("time"); optionalInteger(entry.time, into: &writer)
        writer.key("value")
        writer.beginObject()
        switch entry.measurement {
        case let .number(value, decimals, units)?:
            // Gen 1 exporters wrote scalars as strings with at least one decimal: a blood pressure
            // measured as 118 is "118.0".
            let measured = SyntheticJSONWriter.decimalText(value, decimals: decimals)
            writer.key("scalar"); writer.string(decimals == 0 ? measured + ".0" : measured)
            writer.key("units"); optionalString(units, into: &writer)
        case let .text(text)?:
            writer.key("scalar"); writer.string(text)
            writer.key("units"); writer.null()
        case nil:
            break
        }
        writer.endObject()
        writer.key("version"); writer.integer(1)
        writer.endObject()
    }

    private func gen1TypeName(_ type: EntryType) -> String {
        switch type {
        case .allergy: return "Allergy"
        case .condition: return "Entry"
        case .encounter: return "Encounter"
        case .immunization: return "Immunization"
        case .medication: return "Medication"
        case .procedure: return "Procedure"
        case .result, .vitalSign: return "LabResult"
        case .socialHistory: return "SocialHistory"
        case .careGoal: return "CareGoal"
        case .medicalEquipment: return "MedicalEquipment"
        }
    }

    /// 24 hex digits like a MongoDB ObjectId: the family's prefix, the patient, the section, the
    /// index, so no two entries of a family share one.
    private func entryID(_ entry: SyntheticEntry) -> String {
        let section = EntryType.allCases.firstIndex(of: entry.type) ?? 0
        return String(patient.recordID.prefix(12)) + SyntheticFamily.hex(UInt64(patient.index), digits: 2)
            + SyntheticFamily.hex(UInt64(section), digits: 2) + SyntheticFamily.hex(UInt64(entry.index), digits: 8)
    }

    // MARK: Gen 2

    private func writeGen2Demographics(_ writer: inout SyntheticJSONWriter) {
        var random = RandomSource(seed: factory.seed, Stream.patient, UInt64(patient.index), 1)
        writer.key("_id"); writer.beginObject(); writer.key("$oid"); writer.string(patient.recordID); writer.endObject()
        writer.key("first"); writer.string(patient.firstName)
        writer.key("last"); writer.string(patient.lastName)
        writer.key("gender"); writer.string(patient.gender)
        writer.key("birthdate"); writer.integer(patient.birthdate)
        // Later servers wrote the MRN as a number when it was one (hds_v4_barry_berry.json).
        writer.key("medical_record_number"); writer.integer(Int64(patient.medicalRecordNumber) ?? 0)
        writer.key("race"); codedValue(random.pick(Vocabulary.races), codeSetKey: "codeSystem", codeSet: "CDC", into: &writer)
        writer.key("ethnicity"); codedValue(random.pick(Vocabulary.ethnicities), codeSetKey: "codeSystem", codeSet: "CDC", into: &writer)
        writer.key("languages")
        writer.beginArray()
        writer.beginObject(); writer.key("codes"); codes([Vocabulary.Code(system: "IETF", value: "en")], into: &writer); writer.endObject()
        writer.endArray()
        let place = random.pick(Vocabulary.cities)
        writer.key("addresses")
        writer.beginArray()
        writer.beginObject()
        writer.key("street")
        writer.beginArray(); writer.string("\(random.int(in: 1...299)) \(random.pick(Vocabulary.streets))"); writer.endArray()
        writer.key("city"); writer.string(place.city)
        writer.key("state"); writer.string(place.state)
        writer.key("zip"); writer.string(place.zip)
        writer.endObject()
        writer.endArray()
    }

    private func writeGen2(_ entry: SyntheticEntry, into writer: inout SyntheticJSONWriter) {
        writer.beginObject()
        writer.key("codes"); codes(entry.codes, into: &writer)
        if let time = entry.time { writer.key("time"); writer.integer(time) }
        if let start = entry.startTime { writer.key("start_time"); writer.integer(start) }
        if let end = entry.endTime { writer.key("end_time"); writer.integer(end) }
        writer.key("description"); writer.string(entry.description)
        if let measurement = entry.measurement {
            writer.key("values")
            writer.beginArray()
            writer.beginObject()
            switch measurement {
            case let .number(value, decimals, units):
                writer.key("scalar"); writer.decimal(value, decimals: decimals)
                writer.key("units"); optionalString(units, into: &writer)
            case let .text(text):
                writer.key("scalar"); writer.string(text)
                writer.key("units"); writer.null()
            }
            writer.endObject()
            writer.endArray()
        }
        if let status = entry.status {
            writer.key("status_code")
            writer.beginObject()
            if let snomed = status.snomed {
                writer.key("SNOMED-CT"); writer.beginArray(); writer.string(snomed); writer.endArray()
            } else {
                writer.key("HL7 ActStatus"); writer.beginArray(); writer.string(status.rawValue); writer.endArray()
            }
            writer.endObject()
        }
        if let reaction = entry.reaction {
            writer.key("reaction"); codedValue(reaction.value, codeSetKey: "codeSystem", codeSet: reaction.system, into: &writer)
        }
        if let severity = entry.severity {
            writer.key("severity"); codedValue(severity.value, codeSetKey: "codeSystem", codeSet: severity.system, into: &writer)
        }
        writer.endObject()
    }

    // MARK: Shared pieces

    /// `{"SYSTEM": ["code", …], …}`, systems in the order given.
    private func codes(_ codes: [Vocabulary.Code], into writer: inout SyntheticJSONWriter) {
        writer.beginObject()
        var written: [String] = []
        for code in codes where !written.contains(code.system) {
            written.append(code.system)
            writer.key(code.system)
            writer.beginArray()
            for same in codes where same.system == code.system { writer.string(same.value) }
            writer.endArray()
        }
        writer.endObject()
    }

    private func codedValue(_ code: String, codeSetKey: String, codeSet: String, into writer: inout SyntheticJSONWriter) {
        writer.beginObject()
        writer.key("code"); writer.string(code)
        writer.key(codeSetKey); writer.string(codeSet)
        writer.endObject()
    }

    private func optionalInteger(_ value: Int64?, into writer: inout SyntheticJSONWriter) {
        if let value { writer.integer(value) } else { writer.null() }
    }

    private func optionalString(_ value: String?, into writer: inout SyntheticJSONWriter) {
        if let value { writer.string(value) } else { writer.null() }
    }
}
