import HealthRecord

/// One section's entries to the store's: the clinical statement of each entry template, its code (or, for
/// problems and allergies, the value or substance that says what it is), its times, value and status.
/// One function a kind of statement; `docs/import-mapping.md` is this file as tables.
struct CCDAEntryReader {
    let values: CCDAValues
    private(set) var entries: [Entry] = []
    private(set) var negated = 0
    private(set) var repeated = 0
    /// Statements that name nothing (a code with only a nullFlavor, no text, no value): left out.
    private(set) var unnamed = 0
    private var seen = Set<String>()

    init(values: CCDAValues) {
        self.values = values
    }

    mutating func read(_ entry: XMLNode, in section: CCDASection) {
        switch section {
        case .problems:
            for observation in entry.nodes(Self.concernObservations) {
                problem(observation, act: observation.node("ancestor::hl7:act[1]"))
            }
        case .allergies:
            for observation in entry.nodes(Self.concernObservations) {
                allergy(observation, act: observation.node("ancestor::hl7:act[1]"))
            }
        case .medications, .immunizations:
            if let administration = entry.node(".//hl7:substanceAdministration[not(ancestor::hl7:substanceAdministration)]") {
                substance(administration, as: section)
            }
        case .results, .vitalSigns, .functionalStatus:
            let observations = entry.nodes(".//hl7:observation[not(ancestor::hl7:observation)]")
            for observation in observations { measured(observation, as: section.entryType) }
        case .encounters:
            if let encounter = entry.node(".//hl7:encounter") { simple(encounter, as: .encounter, section: section) }
        case .procedures:
            if let statement = entry.node("hl7:procedure | hl7:observation | hl7:act") { simple(statement, as: .procedure, section: section) }
        case .socialHistory:
            for observation in entry.nodes(".//hl7:observation[not(ancestor::hl7:observation)]") { measured(observation, as: .socialHistory) }
        case .planOfCare, .goals:
            if let statement = entry.node("hl7:observation | hl7:act | hl7:encounter | hl7:procedure | hl7:substanceAdministration | hl7:supply") {
                simple(statement, as: .careGoal, section: section)
            }
        case .medicalEquipment:
            if let statement = entry.node("hl7:supply | hl7:procedure | hl7:organizer | hl7:observation") { equipment(statement) }
        }
    }

    private static func isNegated(_ node: XMLNode) -> Bool { node.attribute("negationInd") == "true" }

    /// The observations a problem or allergy concern is about: the top ones of the entry, without those that
    /// only qualify the concern (its severity, `SEV`; its status, LOINC 33999-4).
    static let concernObservations =
        ".//hl7:observation[not(ancestor::hl7:observation)][not(hl7:code/@code='SEV') and not(hl7:code/@code='33999-4')]"

    /// SNOMED CT findings that say there is no allergy ("no known allergies", "no known drug allergy"…): older
    /// documents (C32) state them as an allergy's value instead of negating the observation.
    static let noKnownAllergy: Set<String> = ["160244002", "409137002", "428607008", "429625007", "716186003", "428197003"]

    private static func saysNoAllergy(_ observation: XMLNode) -> Bool {
        guard let code = observation.node("hl7:value")?.attribute("code") else { return false }
        return noKnownAllergy.contains(code)
    }

    /// The problem is the observation's value (its code says only "problem" or "diagnosis").
    private mutating func problem(_ observation: XMLNode, act: XMLNode?) {
        guard !Self.isNegated(observation) else { negated += 1; return }
        let value = observation.node("hl7:value")
        let concept = (value?.attribute("nullFlavor") == nil ? value : nil) ?? observation.node("hl7:code")
        var (time, start, end) = values.times(observation.node("hl7:effectiveTime"))
        if time == nil, start == nil, end == nil { (time, start, end) = values.times(act?.node("hl7:effectiveTime")) }
        var status = Self.clinicalStatus(observation)
        if status == nil { status = end != nil ? "resolved" : act?.node("hl7:statusCode")?.attribute("code") }
        add(.condition, statement: observation, concept: concept, time: nil, start: start ?? time, end: end, status: status)
    }

    /// The allergy is to the participant's substance (else the observation's value).
    private mutating func allergy(_ observation: XMLNode, act: XMLNode?) {
        guard !Self.isNegated(observation), !Self.saysNoAllergy(observation) else { negated += 1; return }
        let substance = observation.node(".//hl7:participant[@typeCode='CSM']/hl7:participantRole/hl7:playingEntity/hl7:code")
        let concept = (substance?.attribute("nullFlavor") == nil ? substance : nil) ?? observation.node("hl7:value")
        let (time, start, end) = values.times(observation.node("hl7:effectiveTime"))
        let status = Self.clinicalStatus(observation) ?? act?.node("hl7:statusCode")?.attribute("code")
        var entry = make(.allergy, statement: observation, concept: concept, time: nil, start: start ?? time, end: end, status: status)
        entry.rawJSON = allergyDetails(observation)
        keep(entry)
    }

    /// The reaction and severity of an allergy (C-CDA's reaction and severity observations, C32's), kept as
    /// the entry's source JSON `{"reaction", "severity"}`: what the summary reads them from.
    private func allergyDetails(_ observation: XMLNode) -> String {
        let reaction = observation.node(".//hl7:entryRelationship/hl7:observation[hl7:templateId/@root='2.16.840.1.113883.10.20.22.4.9'"
                                        + " or hl7:templateId/@root='2.16.840.1.113883.10.20.1.54']/hl7:value")
        let severity = observation.node(".//hl7:entryRelationship/hl7:observation[hl7:templateId/@root='2.16.840.1.113883.10.20.22.4.8'"
                                        + " or hl7:templateId/@root='2.16.840.1.113883.10.20.1.55']/hl7:value")
        let texts = [("reaction", values.description(reaction)), ("severity", values.description(severity))]
        guard texts.contains(where: { $0.1 != nil }) else { return "{}" }
        var json = JSONWriter(capacity: 96)
        json.beginObject()
        for (key, text) in texts { if let text { json.key(key); json.string(text) } }
        json.endObject()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// A medication or an immunization: the product's code; a refused vaccine is kept, "not-done".
    private mutating func substance(_ administration: XMLNode, as section: CCDASection) {
        let refused = Self.isNegated(administration)
        if refused && section == .medications { negated += 1; return }
        let concept = administration.node("hl7:consumable/hl7:manufacturedProduct/hl7:manufacturedMaterial/hl7:code")
        // The first effectiveTime is when (IVL_TS or TS); a second is the frequency (PIVL_TS).
        let (time, start, end) = values.times(administration.node("hl7:effectiveTime[1]"))
        let status = refused ? "not-done" : administration.node("hl7:statusCode")?.attribute("code")
        if section == .immunizations {
            add(.immunization, statement: administration, concept: concept, time: time ?? start, start: nil, end: nil, status: status)
        } else {
            var entry = make(.medication, statement: administration, concept: concept, time: nil, start: start ?? time, end: end, status: status)
            entry.textValue = directions(administration)
            keep(entry)
        }
    }

    /// How a medication is taken, as a person reads it: the free-text sig when the document has one (an
    /// instructions act, LOINC 76662-6), else the frequency (PIVL_TS period) and "as needed" (a precondition).
    private func directions(_ administration: XMLNode) -> String? {
        if let sig = administration.node("hl7:entryRelationship/hl7:substanceAdministration[hl7:code/@code='76662-6']/hl7:text") {
            if let text = values.narrativeText(sig.node("hl7:reference")?.attribute("value")) { return text }
            let text = CCDAValues.clean(sig.text)
            if !text.isEmpty { return text }
        }
        var parts: [String] = []
        if let period = administration.node("hl7:effectiveTime[contains(@xsi:type, 'PIVL_TS')]/hl7:period"),
           let value = period.attribute("value"), let unit = period.attribute("unit") {
            let units = ["h": "hours", "d": "days", "wk": "weeks", "min": "minutes", "mo": "months"]
            parts.append(value == "1" ? "every " + (units[unit].map { String($0.dropLast()) } ?? unit) : "every \(value) \(units[unit] ?? unit)")
        }
        if administration.node("hl7:precondition") != nil { parts.append("as needed") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// A result, a vital sign or a social-history observation: code, value, time.
    private mutating func measured(_ observation: XMLNode, as type: EntryType) {
        guard !Self.isNegated(observation) else { negated += 1; return }
        let (time, start, end) = values.times(observation.node("hl7:effectiveTime"))
        let status = observation.node("hl7:statusCode")?.attribute("code")
        var entry = make(type, statement: observation, concept: observation.node("hl7:code"),
                         time: time ?? (end == nil ? start : nil), start: time == nil && end != nil ? start : nil, end: end, status: status)
        if let measurement = values.measurement(observation.node("hl7:value")) { entry.apply(measurement) }
        keep(entry)
    }

    private mutating func simple(_ statement: XMLNode, as type: EntryType, section: CCDASection) {
        guard !Self.isNegated(statement) else { negated += 1; return }
        let (time, start, end) = values.times(statement.node("hl7:effectiveTime"))
        add(type, statement: statement, concept: statement.node("hl7:code"), time: time, start: start, end: end,
            status: statement.node("hl7:statusCode")?.attribute("code"))
    }

    private mutating func equipment(_ statement: XMLNode) {
        let device = statement.node(".//hl7:playingDevice/hl7:code") ?? statement.node(".//hl7:manufacturedMaterial/hl7:code")
            ?? statement.node("hl7:code")
        let (time, start, end) = values.times(statement.node("hl7:effectiveTime"))
        add(.medicalEquipment, statement: statement, concept: device, time: time, start: start, end: end,
            status: statement.node("hl7:statusCode")?.attribute("code"))
    }

    /// The status observation's value (SNOMED-CT active, inactive, resolved), as a word.
    private static func clinicalStatus(_ observation: XMLNode) -> String? {
        guard let code = observation.node(".//hl7:entryRelationship/hl7:observation[hl7:code/@code='33999-4']/hl7:value")?.attribute("code")
        else { return nil }
        switch code {
        case "55561003": return "active"
        case "73425007": return "inactive"
        case "413322009": return "resolved"
        default: return nil
        }
    }

    private mutating func add(_ type: EntryType, statement: XMLNode, concept: XMLNode?, time: Int64?, start: Int64?, end: Int64?,
                              status: String?) {
        keep(make(type, statement: statement, concept: concept, time: time, start: start, end: end, status: status))
    }

    /// An entry's id: its statement's `id` (root and extension) when the document gives one, else its
    /// content (type, codes, time, description), so the same fact in a newer document keeps it.
    private func make(_ type: EntryType, statement: XMLNode, concept: XMLNode?, time: Int64?, start: Int64?, end: Int64?,
                      status: String?) -> Entry {
        // A code without a name (a nullFlavor, a free-text medication) is named by the statement's narrative.
        let description = values.description(concept) ?? values.narrativeText(statement.node("hl7:text/hl7:reference")?.attribute("value"))
        let codes = values.codes(concept)
        let idNode = statement.node("hl7:id[@root]")
        let sourceID = idNode.map { ($0.attribute("root") ?? "") + ($0.attribute("extension").map { "|" + $0 } ?? "") }
        let parts = sourceID.map { ["ccda", type.section, $0] }
            ?? ["ccda", type.section, "h", CodeNormalisation.canonical(codes), String(time ?? start ?? end ?? 0), description ?? ""]
        let word = status.map { $0.lowercased() }
        return Entry(id: StableID.make("e", parts), type: type, description: description, time: time, startTime: start, endTime: end,
                     status: word, codes: codes, sourceID: sourceID, rawJSON: "{}")
    }

    private mutating func keep(_ entry: Entry) {
        // A statement that names nothing (its code a nullFlavor, no text, no value) says nothing to show.
        guard entry.description != nil || !entry.codes.isEmpty || entry.value != nil || entry.textValue != nil else {
            unnamed += 1
            return
        }
        guard seen.insert(entry.id).inserted else { repeated += 1; return }
        entries.append(entry)
    }
}
