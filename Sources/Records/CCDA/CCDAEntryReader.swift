import HealthRecord

/// One section's entries to the store's: the clinical statement of each entry template, its code (or, for
/// problems and allergies, the value or substance that says what it is), its times, value and status.
/// One function a kind of statement; `docs/import-mapping.md` is this file as tables.
///
/// Every statement found is accounted for (`accounting`): an entry, the same fact again (merged), or left
/// out for a reason. Ids are evidence, not identity: an id two different facts carry in one document names
/// neither, and they are known by their content (`finish`).
struct CCDAEntryReader {
    let values: CCDAValues
    private(set) var accounting = ImportAccounting()
    private(set) var warnings: [String] = []
    /// The facts read, in document order, before `finish` gives them their ids.
    private var facts: [Fact] = []
    /// Conditions stated inside other statements (a medication's indication, an encounter's diagnosis):
    /// entries only when no condition of the document already says them.
    private var statedConditions: [Fact] = []

    /// Statements read from one `entry` at most (a lab panel is tens): the rest are left out, with a warning.
    static let maxStatementsPerEntry = 1_000
    /// Facts nested in another statement are looked for this many `entryRelationship`s deep at most.
    static let maxNestedDepth = 8

    init(values: CCDAValues) {
        self.values = values
    }

    /// One fact read, with what its id and its content are.
    struct Fact {
        var entry: Entry
        /// The statement's `id`, `root|extension`.
        var sourceID: String?
    }

    /// The entries of the document, each once, in document order (after `finish`).
    private(set) var entries: [Entry] = []

    /// Facts read so far (a section's share of the document: the difference before and after it).
    var factCount: Int { facts.count + statedConditions.count }

    mutating func read(_ entry: XMLNode, in section: CCDASection) {
        let before = accounting.elements
        switch section {
        case .problems:
            for observation in statements(entry, Self.concernObservations, in: section) {
                problem(observation, act: observation.node("ancestor::hl7:act[1]"))
            }
        case .allergies:
            for observation in statements(entry, Self.concernObservations, in: section) {
                allergy(observation, act: observation.node("ancestor::hl7:act[1]"))
            }
        case .medications, .immunizations:
            if let administration = entry.node(".//hl7:substanceAdministration[not(ancestor::hl7:substanceAdministration)]") {
                substance(administration, as: section)
                if section == .medications {
                    for indication in nested(administration, Self.indication) {
                        statedCondition(indication)
                    }
                    // A reaction the medication caused (C-CDA's reaction observation, C32's): a condition of its
                    // own, noted as the medication's.
                    let medication = values.description(administration.node("hl7:consumable/hl7:manufacturedProduct/hl7:manufacturedMaterial/hl7:code"))
                    for reaction in nested(administration, Self.reaction) {
                        statedCondition(reaction, note: medication.map { "A reaction to \($0)" } ?? "A reaction to a medication")
                    }
                }
            }
        case .results, .vitalSigns, .functionalStatus:
            for observation in statements(entry, ".//hl7:observation[not(ancestor::hl7:observation)]", in: section) {
                measured(observation, as: section.entryType)
            }
        case .encounters:
            if let encounter = entry.node(".//hl7:encounter") {
                simple(encounter, as: .encounter, section: section)
                // Encounter diagnoses (4.80): their problems, when the problem list lacks them.
                for diagnosis in nested(encounter, Self.encounterDiagnosis) {
                    statedCondition(diagnosis)
                }
            }
        case .procedures:
            if let statement = entry.node("hl7:procedure | hl7:observation | hl7:act") {
                simple(statement, as: .procedure, section: section)
                // Results of the procedure (a biopsy's findings): results of their own.
                for result in nested(statement, Self.nestedResult) + nested(statement, Self.nestedPanelResult) {
                    accounting.found()
                    measured(result, as: .result)
                }
            }
        case .socialHistory:
            for observation in statements(entry, ".//hl7:observation[not(ancestor::hl7:observation)]", in: section) {
                measured(observation, as: .socialHistory)
            }
        case .planOfCare, .goals:
            if let statement = entry.node("hl7:observation | hl7:act | hl7:encounter | hl7:procedure | hl7:substanceAdministration | hl7:supply") {
                simple(statement, as: .careGoal, section: section)
            }
        case .medicalEquipment:
            if let statement = entry.node("hl7:supply | hl7:procedure | hl7:organizer | hl7:observation") { equipment(statement) }
        }
        // The single-statement kinds found theirs as they read it; an entry that gave none is one left out.
        let single: Set<CCDASection> = [.medications, .immunizations, .encounters, .procedures, .planOfCare, .goals, .medicalEquipment]
        if single.contains(section), accounting.elements == before {
            accounting.found()
            accounting.leave(.noStatement)
            warn("an entry of \(section.title) holds no statement to read")
        }
    }

    /// An entry of a section the reader does not map: accounted for, left out (its narrative is kept).
    mutating func unmapped(_ count: Int) {
        accounting.found(count)
        accounting.leave(.unmappedSection, count)
    }

    /// The statements of a multi-statement entry, at most `maxStatementsPerEntry`; an entry with none (an
    /// act with no observation) is one statement left out.
    private mutating func statements(_ entry: XMLNode, _ expression: String, in section: CCDASection) -> [XMLNode] {
        let found = entry.nodes(expression)
        if found.isEmpty {
            accounting.found()
            accounting.leave(.noStatement)
            warn("an entry of \(section.title) holds no statement to read (an act with no observation)")
            return []
        }
        // The ones the reader reads are found by the functions that read them.
        if found.count > Self.maxStatementsPerEntry {
            let over = found.count - Self.maxStatementsPerEntry
            accounting.found(over)
            accounting.leave(.overLimit, over)
            warn("an entry of \(section.title) holds \(found.count) statements: the first \(Self.maxStatementsPerEntry) were read")
        }
        let read = Array(found.prefix(Self.maxStatementsPerEntry))
        accounting.found(read.count)
        return read
    }

    /// Facts stated inside other statements, as `nested` looks for them below an `entryRelationship`.
    static let indication = "hl7:observation[hl7:templateId/@root='2.16.840.1.113883.10.20.22.4.19']"
    static let reaction = "hl7:observation[hl7:templateId/@root='2.16.840.1.113883.10.20.22.4.9' or hl7:templateId/@root='2.16.840.1.113883.10.20.1.54']"
    static let encounterDiagnosis = "hl7:act[hl7:templateId/@root='2.16.840.1.113883.10.20.22.4.80']/hl7:entryRelationship/hl7:observation"
    static let nestedResult = "hl7:observation[hl7:templateId/@root='2.16.840.1.113883.10.20.22.4.2']"
    static let nestedPanelResult = "hl7:organizer/hl7:component/hl7:observation"

    /// Statements `expression` selects within `statement`'s `entryRelationship`s, at most `maxNestedDepth`
    /// deep and `maxStatementsPerEntry` in all. Those deeper or past the limit are left out, counted, with
    /// a warning: nothing the document states is dropped without a word.
    private mutating func nested(_ statement: XMLNode, _ expression: String) -> [XMLNode] {
        var out: [XMLNode] = []
        var path = "hl7:entryRelationship/"
        for _ in 0..<Self.maxNestedDepth {
            out += statement.nodes(path + expression)
            if out.count >= Self.maxStatementsPerEntry { break }
            path += "*/hl7:entryRelationship/"
        }
        out = Array(out.prefix(Self.maxStatementsPerEntry))
        let beyond = statement.count(".//hl7:entryRelationship/" + expression) - out.count
        if beyond > 0 {
            accounting.found(beyond)
            accounting.leave(.overLimit, beyond)
            warn("statements nested more than \(Self.maxNestedDepth) entryRelationships deep, or more than "
                 + "\(Self.maxStatementsPerEntry) in one entry, were not read")
        }
        return out
    }

    private mutating func warn(_ text: String) {
        // One line a kind of warning, however often it happens.
        if !warnings.contains(text), warnings.count < Self.maxWarnings { warnings.append(text) }
    }

    static let maxWarnings = 20

    private static func isNegated(_ node: XMLNode) -> Bool { node.attribute("negationInd") == "true" }

    /// `nullified`: the statement was entered in error.
    private static func isNullified(_ node: XMLNode) -> Bool { node.node("hl7:statusCode")?.attribute("code") == "nullified" }

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

    /// Left out when negated or nullified; says whether it was.
    private mutating func leftOut(_ statement: XMLNode) -> Bool {
        if Self.isNegated(statement) { accounting.leave(.negated); return true }
        if Self.isNullified(statement) { accounting.leave(.enteredInError); return true }
        return false
    }

    /// The problem is the observation's value (its code says only "problem" or "diagnosis").
    private mutating func problem(_ observation: XMLNode, act: XMLNode?) {
        guard !leftOut(observation) else { return }
        let value = observation.node("hl7:value")
        let concept = (value?.attribute("nullFlavor") == nil ? value : nil) ?? observation.node("hl7:code")
        var (time, start, end) = values.times(observation.node("hl7:effectiveTime"))
        if time == nil, start == nil, end == nil { (time, start, end) = values.times(act?.node("hl7:effectiveTime")) }
        var status = Self.clinicalStatus(observation)
        if status == nil { status = end != nil ? "resolved" : act?.node("hl7:statusCode")?.attribute("code") }
        add(.condition, statement: observation, concept: concept, time: nil, start: start ?? time, end: end, status: status)
    }

    /// A problem stated inside another statement: an entry when no condition of the document says it.
    /// `note` says where it was stated, when that is part of what it means (a medication's reaction).
    private mutating func statedCondition(_ observation: XMLNode, note: String? = nil) {
        accounting.found()
        guard !leftOut(observation) else { return }
        let value = observation.node("hl7:value")
        guard let concept = value?.attribute("nullFlavor") == nil ? value : nil else {
            accounting.leave(.namesNothing)
            return
        }
        let (time, start, end) = values.times(observation.node("hl7:effectiveTime"))
        var entry = make(.condition, statement: observation, concept: concept, time: nil, start: start ?? time, end: end,
                         status: Self.clinicalStatus(observation))
        entry.sourceNote = note
        guard named(entry) else { accounting.leave(.namesNothing); return }
        statedConditions.append(Fact(entry: entry, sourceID: nil))
    }

    /// The allergy is to the participant's substance (else the observation's value).
    private mutating func allergy(_ observation: XMLNode, act: XMLNode?) {
        guard !leftOut(observation) else { return }
        guard !Self.saysNoAllergy(observation) else { accounting.leave(.negated); return }
        let substance = observation.node(".//hl7:participant[@typeCode='CSM']/hl7:participantRole/hl7:playingEntity/hl7:code")
        let concept = (substance?.attribute("nullFlavor") == nil ? substance : nil) ?? observation.node("hl7:value")
        let (time, start, end) = values.times(observation.node("hl7:effectiveTime"))
        let status = Self.clinicalStatus(observation) ?? act?.node("hl7:statusCode")?.attribute("code")
        var entry = make(.allergy, statement: observation, concept: concept, time: nil, start: start ?? time, end: end, status: status)
        entry.rawJSON = allergyDetails(observation)
        keep(entry, statement: observation)
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
        accounting.found()
        let refused = Self.isNegated(administration)
        if refused && section == .medications { accounting.leave(.negated); return }
        if Self.isNullified(administration) { accounting.leave(.enteredInError); return }
        let concept = administration.node("hl7:consumable/hl7:manufacturedProduct/hl7:manufacturedMaterial/hl7:code")
        // The first effectiveTime is when (IVL_TS or TS); a second is the frequency (PIVL_TS).
        let (time, start, end) = values.times(administration.node("hl7:effectiveTime[1]"))
        let status = refused ? "not-done" : administration.node("hl7:statusCode")?.attribute("code")
        if section == .immunizations {
            add(.immunization, statement: administration, concept: concept, time: time ?? start, start: nil, end: nil, status: status)
        } else {
            var entry = make(.medication, statement: administration, concept: concept, time: nil, start: start ?? time, end: end, status: status)
            entry.textValue = directions(administration)
            keep(entry, statement: administration)
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

    /// A result, a vital sign or a social-history observation: code, value, time (else its organizer's).
    private mutating func measured(_ observation: XMLNode, as type: EntryType) {
        guard !leftOut(observation) else { return }
        var (time, start, end) = values.times(observation.node("hl7:effectiveTime"))
        if time == nil, start == nil, end == nil {
            (time, start, end) = values.times(observation.node("parent::hl7:component/parent::hl7:organizer/hl7:effectiveTime"))
        }
        let status = observation.node("hl7:statusCode")?.attribute("code")
        var entry = make(type, statement: observation, concept: observation.node("hl7:code"),
                         time: time ?? (end == nil ? start : nil), start: time == nil && end != nil ? start : nil, end: end, status: status)
        if let measurement = values.measurement(observation.node("hl7:value")) { entry.apply(measurement) }
        if let units = entry.units, !Self.looksLikeUCUM(units) {
            warn("a unit that is not UCUM (\"\(units.prefix(40))\"): kept as written")
        }
        CCDAResultDetail.apply(observation, values: values, to: &entry)
        if let range = entry.referenceRange, range.low == nil, range.high == nil {
            warn("a reference range given only in words: kept as its text, no value is flagged by it")
        }
        if entry.interpretation == nil, let code = observation.node("hl7:interpretationCode"), code.attribute("nullFlavor") == nil {
            warn("an interpretation code that is not HL7's (\"\(code.attribute("code")?.prefix(20) ?? "")\"): left out, the value kept")
        }
        keep(entry, statement: observation)
    }

    /// Whether a unit is written as UCUM can be (its characters: no spaces, no words with punctuation
    /// outside UCUM's). Not a parse of UCUM: "seconds" passes; "mg per dl" does not.
    static func looksLikeUCUM(_ unit: String) -> Bool {
        !unit.isEmpty && unit.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || Array("./[]{}()%*^+-'_".utf8).contains(byte)
        }
    }

    private mutating func simple(_ statement: XMLNode, as type: EntryType, section: CCDASection) {
        accounting.found()
        guard !leftOut(statement) else { return }
        let (time, start, end) = values.times(statement.node("hl7:effectiveTime"))
        add(type, statement: statement, concept: statement.node("hl7:code"), time: time, start: start, end: end,
            status: statement.node("hl7:statusCode")?.attribute("code"))
    }

    private mutating func equipment(_ statement: XMLNode) {
        accounting.found()
        guard !leftOut(statement) else { return }
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
        keep(make(type, statement: statement, concept: concept, time: time, start: start, end: end, status: status), statement: statement)
    }

    /// An entry with its source id; its own id is given by `finish`.
    private func make(_ type: EntryType, statement: XMLNode, concept: XMLNode?, time: Int64?, start: Int64?, end: Int64?,
                      status: String?) -> Entry {
        // A code without a name (a nullFlavor, a free-text medication) is named by the statement's narrative.
        let description = values.description(concept) ?? values.narrativeText(statement.node("hl7:text/hl7:reference")?.attribute("value"))
        let codes = values.codes(concept)
        let word = status.map { $0.lowercased() }
        return Entry(id: "", type: type, description: description, time: time, startTime: start, endTime: end,
                     status: word, codes: codes, sourceID: Self.sourceID(statement), rawJSON: "{}")
    }

    /// The statement's `id` (`root|extension`), when it has one that is not a null flavor.
    static func sourceID(_ statement: XMLNode) -> String? {
        guard let id = statement.node("hl7:id[@root]"), let root = id.attribute("root"), !root.isEmpty else { return nil }
        return root + (id.attribute("extension").map { "|" + $0 } ?? "")
    }

    private func named(_ entry: Entry) -> Bool {
        entry.description != nil || !entry.codes.isEmpty || entry.value != nil || entry.textValue != nil
    }

    private mutating func keep(_ entry: Entry, statement: XMLNode) {
        // A statement that names nothing (its code a nullFlavor, no text, no value) says nothing to show.
        guard named(entry) else {
            accounting.leave(.namesNothing)
            return
        }
        facts.append(Fact(entry: entry, sourceID: entry.sourceID))
    }

    // MARK: Identity

    /// What a fact is about: its codes, else its description.
    static func what(_ entry: Entry) -> String {
        entry.codes.isEmpty ? "d:" + (entry.description ?? "").lowercased() : CodeNormalisation.canonical(entry.codes)
    }

    /// A fact's content, its id when its source id names nothing: type, what, when, value.
    static func content(_ entry: Entry) -> [String] {
        ["ccda", entry.type.section, "h", CodeNormalisation.canonical(entry.codes), String(entry.date ?? 0), entry.description ?? "",
         entry.value.map { String($0) } ?? entry.textValue ?? "", entry.units ?? ""]
    }

    /// All a fact says: two facts that say the same are one, whatever their ids (a vendor's list that
    /// gives one medication three times, each with an id of its own).
    static func sameness(_ entry: Entry) -> [String] {
        content(entry) + [String(entry.time ?? -1), String(entry.startTime ?? -1), String(entry.endTime ?? -1), entry.status ?? "",
                          entry.textValue ?? "", entry.rawJSON]
    }

    /// Gives every fact its id and keeps each once. A source id carried by one fact (or by the same fact
    /// twice) names it, with what it is about: a newer document's fact under that id updates it only when it
    /// is about the same thing. A source id carried by different facts names none of them: they are known by
    /// their content. Conditions stated inside other statements follow, when no condition says them yet.
    mutating func finish() {
        var contentsByID: [String: Set<[String]>] = [:]
        for fact in facts {
            guard let id = fact.sourceID else { continue }
            contentsByID[fact.entry.type.section + "\u{1}" + id, default: []].insert(Self.content(fact.entry))
        }
        var shared = 0
        var seen = Set<String>()
        var said = Set<[String]>()
        entries.reserveCapacity(facts.count)
        for var fact in facts {
            guard said.insert(Self.sameness(fact.entry)).inserted else {
                accounting.merged += 1
                continue
            }
            let key = fact.sourceID.map { fact.entry.type.section + "\u{1}" + $0 }
            if let id = fact.sourceID, let key, contentsByID[key]?.count == 1 {
                fact.entry.id = StableID.make("e", ["ccda", fact.entry.type.section, id, Self.what(fact.entry)])
            } else {
                if let key, contentsByID[key] != nil { shared += 1 }
                fact.entry.id = StableID.make("e", Self.content(fact.entry))
            }
            if seen.insert(fact.entry.id).inserted {
                entries.append(fact.entry)
                accounting.imported += 1
            } else {
                accounting.merged += 1
            }
        }
        if shared > 0 {
            warnings.append("\(shared) statements share their id with a different statement: each is kept, known by its content")
        }
        // Stated conditions: merged into a condition about the same thing (a code in common, or the same words).
        var listed = Set<String>()
        for entry in entries where entry.type == .condition {
            if let description = entry.description { listed.insert("d:" + description.lowercased()) }
            for (system, codes) in entry.codes { for code in codes { listed.insert(system + "|" + code) } }
        }
        for var fact in statedConditions {
            var keys = fact.entry.description.map { ["d:" + $0.lowercased()] } ?? []
            for (system, codes) in fact.entry.codes { for code in codes { keys.append(system + "|" + code) } }
            if keys.contains(where: listed.contains) {
                accounting.merged += 1
                continue
            }
            listed.formUnion(keys)
            fact.entry.id = StableID.make("e", ["ccda", "conditions", "stated", Self.what(fact.entry)])
            entries.append(fact.entry)
            accounting.imported += 1
        }
        facts = []
        statedConditions = []
    }
}

extension CCDASection {
    /// How the report names the section.
    var title: String {
        switch self {
        case .allergies: return "Allergies"
        case .problems: return "Problems"
        case .medications: return "Medications"
        case .immunizations: return "Immunizations"
        case .results: return "Results"
        case .vitalSigns: return "Vital Signs"
        case .encounters: return "Encounters"
        case .procedures: return "Procedures"
        case .socialHistory: return "Social History"
        case .planOfCare: return "Plan of Care"
        case .goals: return "Goals"
        case .medicalEquipment: return "Medical Equipment"
        case .functionalStatus: return "Functional Status"
        }
    }
}
