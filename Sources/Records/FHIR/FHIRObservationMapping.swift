import HealthRecord

/// `Observation` → an entry whose type comes from its category: vital-signs → vital signs,
/// social-history → social history, everything else (laboratory, survey, exam, none) → results. An
/// observation with no value of its own but components with values (a blood-pressure panel: systolic
/// 8480-6 and diastolic 8462-4) gives one entry per such component, named by the component's code, which
/// is what the timeline's blood-pressure grouping reads.
enum FHIRObservationMapping {
    static let categorySystem = "http://terminology.hl7.org/CodeSystem/observation-category"

    static func observation(_ resource: FHIRResource, _ r: FHIRElement, notes: inout FHIRMappingNotes) throws -> FHIRMapped {
        let type = try entryType(r)
        let code = try r.codeableConcept("code")
        // An empty period (`{}`) is no period: the other dates still count.
        let period = try r.period("effectivePeriod").flatMap { $0.start == nil && $0.end == nil ? nil : $0 }
        let time = try period == nil ? (r.date("effectiveDateTime") ?? r.date("effectiveInstant") ?? r.date("issued")) : nil
        let status = try r.string("status")

        let value = try measurement(r)
        let components = try r.elements("component")
        if value == nil, !components.isEmpty {
            var entries: [Entry] = []
            var seen: [String: Int] = [:]
            for (index, component) in components.enumerated() {
                guard let reading = try measurement(component) else { continue }
                let concept = try component.codeableConcept("code")
                // By the component's code, so a reordered panel keeps its ids; a code given twice is
                // numbered, so the two readings stay two entries.
                var part = "component/" + (concept?.code() ?? "#\(index)")
                seen[part, default: 0] += 1
                if let count = seen[part], count > 1 { part += "#\(count)" }
                var entry = FHIREntryMapping.entry(resource, type, concept: concept, part: part,
                                                   time: time, start: period?.start, end: period?.end, status: status)
                entry.apply(reading)
                // A component's own range and interpretation, else the observation's.
                FHIRResultDetail.apply(component, to: &entry)
                if entry.referenceRange == nil { entry.referenceRange = FHIRResultDetail.referenceRange(r) }
                if entry.interpretation == nil { entry.interpretation = FHIRResultDetail.interpretation(r) }
                entry.sourceNote = FHIRResultDetail.note(r)
                FHIRResultDetail.check(component, entry, notes: &notes)
                entries.append(entry)
            }
            if !entries.isEmpty { return .entries(entries) }
        }
        var entry = FHIREntryMapping.entry(resource, type, concept: code, time: time, start: period?.start,
                                           end: period?.end, status: status)
        if let value { entry.apply(value) }
        FHIRResultDetail.apply(r, to: &entry)
        FHIRResultDetail.check(r, entry, notes: &notes)
        return .entries([entry])
    }

    static func entryType(_ r: FHIRElement) throws -> EntryType {
        for category in try r.codeableConcepts("category") {
            for coding in category.codings where coding.system == nil || coding.system == categorySystem {
                switch coding.code {
                case "vital-signs": return .vitalSign
                case "social-history": return .socialHistory
                default: continue
                }
            }
        }
        return .result
    }

    /// `value[x]` of an observation or a component: a quantity is a number with its unit; a concept, a
    /// string, a boolean, a range or a ratio is text.
    static func measurement(_ r: FHIRElement) throws -> Measurement? {
        if let quantity = try r.element("valueQuantity") {
            let unit = try nonEmpty(quantity.string("unit")) ?? quantity.string("code")
            let comparator = try quantity.string("comparator")
            guard let number = try quantity.number("value") else { return Measurement(value: nil, text: nil, units: unit) }
            if let comparator, !comparator.isEmpty {
                // "< 5": not the number 5; kept as the text the source meant.
                return Measurement(value: nil, text: comparator + " " + number.literal, units: unit)
            }
            return Measurement(value: number.double, text: nil, units: unit)
        }
        if let concept = try r.codeableConcept("valueCodeableConcept") {
            return Measurement(value: nil, text: concept.description, units: nil)
        }
        if let text = try r.string("valueString") { return Measurement(value: nil, text: text, units: nil) }
        if let flag = try r.bool("valueBoolean") { return Measurement(value: nil, text: flag ? "true" : "false", units: nil) }
        if let number = try r.number("valueInteger") { return Measurement(value: number.double, text: nil, units: nil) }
        if let range = try r.element("valueRange") {
            let low = try range.element("low")?.number("value")?.literal
            let high = try range.element("high")?.number("value")?.literal
            let unit = try range.element("low")?.string("unit") ?? range.element("high")?.string("unit")
            return Measurement(value: nil, text: "\(low ?? "")–\(high ?? "")", units: unit)
        }
        if let ratio = try r.element("valueRatio") {
            let numerator = try ratio.element("numerator")?.number("value")?.literal ?? "?"
            let denominator = try ratio.element("denominator")?.number("value")?.literal ?? "?"
            return Measurement(value: nil, text: numerator + ":" + denominator, units: nil)
        }
        if let text = try r.string("valueDateTime") ?? r.string("valueTime") {
            return Measurement(value: nil, text: text, units: nil)
        }
        return nil
    }
}

extension Entry {
    mutating func apply(_ measurement: Measurement) {
        value = measurement.value
        textValue = measurement.text
        units = measurement.units
    }
}
