import HealthRecord

/// One row of a shared section: an entry of the record, or one value of a reading the person took.
struct SharedFact: Sendable {
    /// The entry's stable id; a reading's id, with `#2` for a blood pressure's diastolic value.
    var id: String
    var type: EntryType
    var description: String?
    var codes: [SharedCode]
    var time: Int64?
    var start: Int64?
    var end: Int64?
    var status: String?
    var value: Double?
    var textValue: String?
    var units: String?
    var note: String?
    /// What the source said about a result: its normal range and its interpretation (an HL7 code).
    var referenceRange: ReferenceRange?
    var interpretation: String?
    /// The person took it themselves (a reading): patient-reported.
    var patientReported: Bool
    var rawJSON: String

    var date: Int64? { time ?? start ?? end }
    /// What a person reads as its name.
    var name: String { description ?? codes.first.map { $0.display ?? "\($0.system) \($0.code)" } ?? "(not named)" }
}

/// The sections of a shared record with their rows, as both writers read them.
struct SharedContent: Sendable {
    struct Part: Sendable {
        var section: SharedSection
        var facts: [SharedFact]
        /// Entries of this section the person marked wrong, left out.
        var struck: Int
    }

    var record: SharedRecord
    var options: SharingOptions
    var parts: [Part]

    /// LOINC codes of the readings' kinds (blood pressure: systolic, diastolic).
    static func loinc(_ kind: Reading.Kind) -> [(code: String, display: String)] {
        switch kind {
        case .weight: return [("29463-7", "Body weight")]
        case .height: return [("8302-2", "Body height")]
        case .bloodPressure: return [("8480-6", "Systolic blood pressure"), ("8462-4", "Diastolic blood pressure")]
        case .pulse: return [("8867-4", "Heart rate")]
        case .glucose: return [("2339-0", "Glucose [Mass/volume] in Blood")]
        }
    }

    init(record: SharedRecord, options: SharingOptions) {
        self.record = record
        self.options = options
        var facts: [SharedSection: [SharedFact]] = [:]
        let chosen = Set(options.sections)
        for item in record.items {
            let entry = item.entry
            guard let section = SharedSection.of(entry, now: options.now), chosen.contains(section) else { continue }
            if section.isLimitedBySince, let since = options.since, (entry.date ?? .min) < since { continue }
            facts[section, default: []].append(SharedFact(
                id: entry.id, type: entry.type, description: MarkupText.clean(entry.description),
                codes: SharedCodeSystems.codes(json: entry.codesJSON, raw: item.rawJSON),
                time: entry.time, start: entry.startTime, end: entry.endTime, status: entry.status,
                value: entry.value, textValue: MarkupText.clean(entry.textValue), units: MarkupText.clean(entry.units),
                note: MarkupText.clean(item.note), referenceRange: entry.referenceRange, interpretation: entry.interpretation,
                patientReported: false, rawJSON: item.rawJSON))
        }
        if chosen.contains(.vitalSigns) {
            var readings: [SharedFact] = []
            for reading in record.readings {
                if let since = options.since, reading.takenAt < since { continue }
                for (index, (vital, code)) in zip(reading.vitalSigns, Self.loinc(reading.kind)).enumerated() {
                    readings.append(SharedFact(
                        id: index == 0 ? reading.id : reading.id + "#\(index + 1)", type: .vitalSign, description: vital.description,
                        codes: [SharedCode(system: "LOINC", code: code.code, display: code.display)],
                        time: reading.takenAt, start: nil, end: nil, status: "final", value: vital.value, textValue: nil,
                        units: vital.units, note: MarkupText.clean(reading.note), patientReported: true, rawJSON: "{}"))
                }
            }
            if !readings.isEmpty {
                var merged = facts[.vitalSigns, default: []] + readings
                merged.sort { ($0.date ?? .max, $0.id) < ($1.date ?? .max, $1.id) }
                facts[.vitalSigns] = merged
            }
        }
        var struck: [SharedSection: Int] = [:]
        for (type, count) in record.struck {
            switch type {
            case .condition: struck[.problems, default: 0] += count
            case .allergy: struck[.allergies, default: 0] += count
            case .medication: struck[.medications, default: 0] += count
            case .immunization: struck[.immunizations, default: 0] += count
            case .result: struck[.results, default: 0] += count
            case .vitalSign: struck[.vitalSigns, default: 0] += count
            case .procedure: struck[.procedures, default: 0] += count
            case .medicalEquipment: struck[.devices, default: 0] += count
            case .careGoal: struck[.planOfCare, default: 0] += count
            case .encounter, .socialHistory: break
            }
        }
        parts = options.sections.map { Part(section: $0, facts: facts[$0] ?? [], struck: struck[$0] ?? 0) }
    }

    /// What the narrative says of the entries left out.
    static func struckSentence(_ count: Int) -> String? {
        switch count {
        case 0: return nil
        case 1: return "1 entry the person marked as wrong is left out."
        default: return "\(count) entries the person marked as wrong are left out."
        }
    }

    /// A number as a person reads it: 179, 7.25.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
