import HealthRecord

/// The CCD's entries, one C-CDA R2.1 entry template a shared section: ids from the entry's stable id,
/// codes with their translations, times, values, the person's note as a Comment Activity.
extension CCDDocumentWriter {
    mutating func entry(_ fact: SharedFact, in section: SharedSection, reference: String) {
        switch section {
        case .problems: problemConcern(fact, reference: reference)
        case .pastIllness: problemObservation(fact, reference: reference)
        case .allergies: allergyConcern(fact, reference: reference)
        case .medications: medication(fact, reference: reference)
        case .immunizations: immunization(fact, reference: reference)
        case .results: result(fact, reference: reference)
        case .vitalSigns: vitalSign(fact, reference: reference)
        case .procedures: procedure(fact, reference: reference)
        case .devices: supply(fact, reference: reference)
        case .planOfCare: plannedAct(fact, reference: reference)
        }
    }

    // MARK: Problems and allergies

    private mutating func problemConcern(_ fact: SharedFact, reference: String) {
        let ended = fact.end != nil || CCDStatus.isClosed(fact.status)
        xml.open("act", [("classCode", "ACT"), ("moodCode", "EVN")])
        templateIDs("2.16.840.1.113883.10.20.22.4.3", "2015-08-01")
        id(fact, part: "concern")
        xml.empty("code", [("code", "CONC"), ("codeSystem", "2.16.840.1.113883.5.6"), ("displayName", "Concern")])
        xml.empty("statusCode", [("code", ended ? "completed" : "active")])
        interval(low: fact.time ?? fact.start, high: fact.end, highKnown: !ended)
        xml.open("entryRelationship", [("typeCode", "SUBJ")])
        problemObservation(fact, reference: reference)
        xml.close()
        xml.close()
    }

    private mutating func problemObservation(_ fact: SharedFact, reference: String) {
        xml.open("observation", [("classCode", "OBS"), ("moodCode", "EVN")])
        templateIDs("2.16.840.1.113883.10.20.22.4.4", "2015-08-01")
        id(fact)
        xml.open("code", [("code", "55607006"), ("codeSystem", Self.snomed), ("codeSystemName", "SNOMED-CT"), ("displayName", "Problem")])
        xml.empty("translation", [("code", "75326-9"), ("codeSystem", Self.loinc), ("codeSystemName", "LOINC"), ("displayName", "Problem")])
        xml.close()
        text(reference)
        xml.empty("statusCode", [("code", "completed")])
        interval(low: fact.time ?? fact.start, high: fact.end)
        coded("value", fact, reference: reference, type: "CD")
        comment(fact, reference: reference)
        xml.close()
    }

    private mutating func allergyConcern(_ fact: SharedFact, reference: String) {
        let ended = fact.end != nil || CCDStatus.isClosed(fact.status)
        xml.open("act", [("classCode", "ACT"), ("moodCode", "EVN")])
        templateIDs("2.16.840.1.113883.10.20.22.4.30", "2015-08-01")
        id(fact, part: "concern")
        xml.empty("code", [("code", "CONC"), ("codeSystem", "2.16.840.1.113883.5.6"), ("displayName", "Concern")])
        xml.empty("statusCode", [("code", ended ? "completed" : "active")])
        interval(low: fact.time ?? fact.start ?? fact.end, high: nil, highKnown: !ended)
        xml.open("entryRelationship", [("typeCode", "SUBJ")])
        xml.open("observation", [("classCode", "OBS"), ("moodCode", "EVN")])
        templateIDs("2.16.840.1.113883.10.20.22.4.7", "2014-06-09")
        id(fact)
        xml.empty("code", [("code", "ASSERTION"), ("codeSystem", "2.16.840.1.113883.5.4")])
        text(reference)
        xml.empty("statusCode", [("code", "completed")])
        interval(low: fact.time ?? fact.start ?? fact.end, high: nil)
        xml.empty("value", [("xsi:type", "CD"), ("code", "419199007"), ("codeSystem", Self.snomed), ("codeSystemName", "SNOMED-CT"),
                            ("displayName", "Allergy to substance (disorder)")])
        xml.open("participant", [("typeCode", "CSM")])
        xml.open("participantRole", [("classCode", "MANU")])
        xml.open("playingEntity", [("classCode", "MMAT")])
        coded("code", fact, reference: reference)
        xml.close()
        xml.close()
        xml.close()
        comment(fact, reference: reference)
        xml.close()
        xml.close()
        xml.close()
    }

    // MARK: Medications and immunizations

    private mutating func medication(_ fact: SharedFact, reference: String) {
        xml.open("substanceAdministration", [("classCode", "SBADM"), ("moodCode", "EVN")])
        templateIDs("2.16.840.1.113883.10.20.22.4.16", "2014-06-09")
        id(fact)
        text(reference)
        xml.empty("statusCode", [("code", CCDStatus.medication(fact))])
        interval(low: fact.time ?? fact.start, high: fact.end, type: "IVL_TS")
        // The dose is not in the record (the directions, when known, are in the narrative).
        xml.empty("doseQuantity", [("nullFlavor", "UNK")])
        consumable(fact, reference: reference, template: "2.16.840.1.113883.10.20.22.4.23")
        comment(fact, reference: reference)
        xml.close()
    }

    private mutating func immunization(_ fact: SharedFact, reference: String) {
        let refused = fact.status == "not-done"
        xml.open("substanceAdministration", [("classCode", "SBADM"), ("moodCode", "EVN"), ("negationInd", refused ? "true" : "false")])
        templateIDs("2.16.840.1.113883.10.20.22.4.52", "2015-08-01")
        id(fact)
        text(reference)
        xml.empty("statusCode", [("code", "completed")])
        point(fact.date)
        consumable(fact, reference: reference, template: "2.16.840.1.113883.10.20.22.4.54")
        comment(fact, reference: reference)
        xml.close()
    }

    /// The product given: Medication Information (4.23) or Immunization Medication Information (4.54).
    private mutating func consumable(_ fact: SharedFact, reference: String, template: String) {
        xml.open("consumable")
        xml.open("manufacturedProduct", [("classCode", "MANU")])
        templateIDs(template, "2014-06-09")
        xml.open("manufacturedMaterial")
        coded("code", fact, reference: reference)
        xml.close()
        xml.close()
        xml.close()
    }

    // MARK: Results and vital signs

    private mutating func result(_ fact: SharedFact, reference: String) {
        xml.open("organizer", [("classCode", "BATTERY"), ("moodCode", "EVN")])
        templateIDs("2.16.840.1.113883.10.20.22.4.1", "2015-08-01")
        id(fact, part: "organizer")
        coded("code", fact, reference: reference)
        xml.empty("statusCode", [("code", "completed")])
        xml.open("component")
        observation(fact, reference: reference, template: ("2.16.840.1.113883.10.20.22.4.2", "2015-08-01"))
        xml.close()
        xml.close()
    }

    private mutating func vitalSign(_ fact: SharedFact, reference: String) {
        xml.open("organizer", [("classCode", "CLUSTER"), ("moodCode", "EVN")])
        templateIDs("2.16.840.1.113883.10.20.22.4.26", "2015-08-01")
        id(fact, part: "organizer")
        xml.open("code", [("code", "46680005"), ("codeSystem", Self.snomed), ("codeSystemName", "SNOMED-CT"), ("displayName", "Vital signs")])
        xml.empty("translation", [("code", "74728-7"), ("codeSystem", Self.loinc), ("codeSystemName", "LOINC"),
                                  ("displayName", "Vital signs, weight, height, head circumference, oximetry, BMI, and BSA panel")])
        xml.close()
        xml.empty("statusCode", [("code", "completed")])
        point(fact.date)
        if fact.patientReported { patientAuthor(fact) }
        xml.open("component")
        observation(fact, reference: reference, template: ("2.16.840.1.113883.10.20.22.4.27", "2014-06-09"))
        xml.close()
        xml.close()
    }

    private mutating func observation(_ fact: SharedFact, reference: String, template: (String, String)) {
        xml.open("observation", [("classCode", "OBS"), ("moodCode", "EVN")])
        templateIDs(template.0, template.1)
        id(fact)
        coded("code", fact, reference: reference)
        text(reference)
        xml.empty("statusCode", [("code", "completed")])
        if let time = fact.time { point(time) } else { interval(low: fact.start, high: fact.end) }
        measurement(fact)
        if let code = fact.interpretation {
            xml.empty("interpretationCode", [("code", code), ("codeSystem", Self.observationInterpretation),
                                             ("codeSystemName", "ObservationInterpretation")])
        }
        if fact.patientReported { patientAuthor(fact) }
        comment(fact, reference: reference)
        if let range = fact.referenceRange { referenceRange(range) }
        xml.close()
    }

    /// The source's normal range, last in the observation (CDA's order): bounds as an IVL_PQ, its words as
    /// the text (and as an ST value when there are no bounds: the template requires a value).
    private mutating func referenceRange(_ range: ReferenceRange) {
        let text = range.text.flatMap(MarkupText.clean)
        let bounds = [("low", range.low), ("high", range.high)].compactMap { name, bound in
            bound.flatMap { $0.value.isFinite ? (name, $0) : nil }
        }
        guard !bounds.isEmpty || text != nil else { return }
        xml.open("referenceRange")
        xml.open("observationRange")
        if let text { xml.text("text", text) }
        if bounds.isEmpty, let text {
            xml.text("value", text, [("xsi:type", "ST")])
        } else {
            xml.open("value", [("xsi:type", "IVL_PQ")])
            for (name, bound) in bounds {
                // A unit with a space is no UCUM code: the bound goes without one.
                let unit = bound.unit.flatMap { $0.utf8.contains(0x20) ? nil : $0 } ?? "1"
                xml.empty(name, [("value", SharedContent.number(bound.value)), ("unit", unit)])
            }
            xml.close()
        }
        xml.empty("interpretationCode", [("code", "N"), ("codeSystem", Self.observationInterpretation)])
        xml.close()
        xml.close()
    }

    /// A number with its UCUM unit (a unit with a space goes as the translation's text); text as ST, but a
    /// vital sign's value must be a PQ: its text is in the narrative only. A PQ without a number keeps a
    /// `unit` ("1"), which the vital-sign template requires.
    private mutating func measurement(_ fact: SharedFact) {
        if let value = fact.value, value.isFinite {
            let number = SharedContent.number(value)
            if let units = fact.units, units.utf8.contains(0x20) {
                xml.open("value", [("xsi:type", "PQ"), ("nullFlavor", "OTH"), ("unit", "1")])
                xml.open("translation", [("value", number), ("nullFlavor", "OTH")])
                xml.text("originalText", units)
                xml.close()
                xml.close()
            } else {
                xml.empty("value", [("xsi:type", "PQ"), ("value", number), ("unit", fact.units ?? "1")])
            }
        } else if let text = fact.textValue, fact.type != .vitalSign {
            xml.text("value", text, [("xsi:type", "ST")])
        } else {
            xml.empty("value", [("xsi:type", "PQ"), ("nullFlavor", "NI"), ("unit", "1")])
        }
    }

    /// The person who took a reading, as its author (patient-reported).
    private mutating func patientAuthor(_ fact: SharedFact) {
        xml.open("author")
        xml.empty("templateId", [("root", "2.16.840.1.113883.10.20.22.4.119")])
        if let time = fact.date { xml.empty("time", [("value", SharedTime.hl7(time))]) } else { xml.empty("time", [("nullFlavor", "UNK")]) }
        xml.open("assignedAuthor")
        xml.empty("id", [("root", idRoot), ("extension", content.record.person.id)])
        xml.empty("code", [("code", "116154003"), ("codeSystem", Self.snomed), ("displayName", "Patient")])
        xml.close()
        xml.close()
    }

    // MARK: Procedures, devices, plans

    private mutating func procedure(_ fact: SharedFact, reference: String) {
        xml.open("procedure", [("classCode", "PROC"), ("moodCode", "EVN")])
        templateIDs("2.16.840.1.113883.10.20.22.4.14", "2014-06-09")
        id(fact)
        coded("code", fact, reference: reference)
        text(reference)
        xml.empty("statusCode", [("code", CCDStatus.procedure(fact))])
        if let time = fact.time { point(time) } else if fact.start != nil || fact.end != nil { interval(low: fact.start, high: fact.end) }
        comment(fact, reference: reference)
        xml.close()
    }

    private mutating func supply(_ fact: SharedFact, reference: String) {
        xml.open("supply", [("classCode", "SPLY"), ("moodCode", "EVN")])
        templateIDs("2.16.840.1.113883.10.20.22.4.50", "2014-06-09")
        id(fact)
        text(reference)
        xml.empty("statusCode", [("code", CCDStatus.procedure(fact) == "active" ? "active" : "completed")])
        // A supply's effectiveTime is a set of times: an interval says its type.
        if let time = fact.time { point(time) } else if fact.start != nil || fact.end != nil {
            interval(low: fact.start, high: fact.end, type: "IVL_TS")
        }
        xml.open("participant", [("typeCode", "PRD")])
        xml.open("participantRole", [("classCode", "MANU")])
        xml.empty("templateId", [("root", "2.16.840.1.113883.10.20.22.4.37")])
        xml.empty("id", [("nullFlavor", "UNK")])
        xml.open("playingDevice")
        coded("code", fact, reference: reference)
        xml.close()
        xml.open("scopingEntity")
        xml.empty("id", [("nullFlavor", "UNK")])
        xml.close()
        xml.close()
        xml.close()
        comment(fact, reference: reference)
        xml.close()
    }

    private mutating func plannedAct(_ fact: SharedFact, reference: String) {
        xml.open("act", [("classCode", "ACT"), ("moodCode", "INT")])
        templateIDs("2.16.840.1.113883.10.20.22.4.39", "2014-06-09")
        id(fact)
        coded("code", fact, reference: reference)
        text(reference)
        xml.empty("statusCode", [("code", "active")])
        if fact.start != nil || fact.end != nil || fact.time != nil { interval(low: fact.time ?? fact.start, high: fact.end) }
        comment(fact, reference: reference)
        xml.close()
    }

    // MARK: Pieces

    /// `root` the person's, `extension` the entry's stable id (and a part for a concern or an organizer).
    private mutating func id(_ fact: SharedFact, part: String? = nil) {
        xml.empty("id", [("root", idRoot), ("extension", part.map { fact.id + "/" + $0 } ?? fact.id)])
    }

    private mutating func text(_ reference: String) {
        xml.open("text")
        xml.empty("reference", [("value", "#" + reference)])
        xml.close()
    }

    /// The fact's codes: the first in a system with an OID, the others as translations, the narrative row
    /// as its original text. With no such code, the original text alone says what it is.
    mutating func coded(_ name: String, _ fact: SharedFact, reference: String, type: String? = nil) {
        let codes = fact.codes.filter { $0.oid != nil }
        var attributes: [(String, String?)] = [("xsi:type", type)]
        if let first = codes.first {
            attributes += [("code", first.code), ("codeSystem", first.oid), ("codeSystemName", first.system),
                           ("displayName", MarkupText.clean(first.display) ?? fact.description)]
        }
        xml.open(name, attributes)
        xml.open("originalText")
        xml.empty("reference", [("value", "#" + reference)])
        xml.close()
        for code in codes.dropFirst() {
            xml.empty("translation", [("code", code.code), ("codeSystem", code.oid), ("codeSystemName", code.system),
                                      ("displayName", MarkupText.clean(code.display))])
        }
        xml.close()
    }

    private mutating func point(_ time: Int64?) {
        if let time { xml.empty("effectiveTime", [("value", SharedTime.hl7(time))]) } else { xml.empty("effectiveTime", [("nullFlavor", "UNK")]) }
    }

    /// `low` (UNK when unknown) and `high`; a concern that is completed must say its end, UNK when it is not
    /// known (`highKnown` false).
    private mutating func interval(low: Int64?, high: Int64?, type: String? = nil, highKnown: Bool = true) {
        xml.open("effectiveTime", [("xsi:type", type)])
        if let low { xml.empty("low", [("value", SharedTime.hl7(low))]) } else { xml.empty("low", [("nullFlavor", "UNK")]) }
        if let high { xml.empty("high", [("value", SharedTime.hl7(high))]) } else if !highKnown { xml.empty("high", [("nullFlavor", "UNK")]) }
        xml.close()
    }

    /// The person's note on the entry: a Comment Activity whose text is the narrative's note cell.
    private mutating func comment(_ fact: SharedFact, reference: String) {
        guard fact.note != nil else { return }
        xml.open("entryRelationship", [("typeCode", "SUBJ"), ("inversionInd", "true")])
        xml.open("act", [("classCode", "ACT"), ("moodCode", "EVN")])
        xml.empty("templateId", [("root", "2.16.840.1.113883.10.20.22.4.64")])
        xml.empty("code", [("code", "48767-8"), ("codeSystem", Self.loinc), ("codeSystemName", "LOINC"), ("displayName", "Annotation comment")])
        text(reference + "note")
        xml.close()
        xml.close()
    }
}

/// The record's status words as the C-CDA templates' status codes.
enum CCDStatus {
    static func isClosed(_ status: String?) -> Bool {
        guard let status else { return false }
        return Entry.closedStatuses.contains(status) || status == "remission"
    }

    static func medication(_ fact: SharedFact) -> String {
        switch fact.status {
        case "active"?, "intended"?, "on-hold"?: return "active"
        case "aborted"?, "stopped"?: return "aborted"
        case "cancelled"?, "not-taken"?: return "cancelled"
        case nil: return fact.end == nil ? "active" : "completed"
        default: return "completed"
        }
    }

    static func procedure(_ fact: SharedFact) -> String {
        switch fact.status {
        case "active"?, "in-progress"?: return "active"
        case "aborted"?, "stopped"?: return "aborted"
        case "cancelled"?, "not-done"?: return "cancelled"
        case "new"?, "preparation"?: return "new"
        default: return "completed"
        }
    }
}
