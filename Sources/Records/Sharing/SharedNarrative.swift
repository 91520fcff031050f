import HealthRecord

/// A section's narrative as a table a doctor expects (what, codes, value, dates, status, note), the same
/// for the IPS's XHTML and the CCD's narrative block: headers, and one row of plain text a fact.
struct SharedNarrative {
    var headers: [String]
    var rows: [[String]]

    init(_ part: SharedContent.Part) {
        let facts = part.facts
        let notes = facts.contains { $0.note != nil }
        let reported = facts.contains { $0.patientReported }
        var columns: [(String, (SharedFact) -> String)] = []
        let codes: (String, (SharedFact) -> String) = ("Codes", Self.codes)
        func date(_ time: Int64?) -> String { time.map(SharedTime.readable) ?? "" }
        switch part.section {
        case .problems:
            columns = [("Problem", \.name), codes, ("Onset", { date($0.start ?? $0.time) }), ("Status", { $0.status ?? "" })]
        case .pastIllness:
            columns = [("Problem", \.name), codes, ("Onset", { date($0.start ?? $0.time) }), ("Resolved", { date($0.end) }),
                       ("Status", { $0.status ?? "" })]
        case .allergies:
            columns = [("Substance", \.name), codes, ("Reaction", { AllergyDetails.read($0.rawJSON).reaction ?? "" }),
                       ("Since", { date($0.start ?? $0.time ?? $0.end) }), ("Status", { $0.status ?? "" })]
        case .medications:
            columns = [("Medication", \.name), codes, ("Directions", { $0.textValue ?? "" }), ("Start", { date($0.start ?? $0.time) }),
                       ("End", { date($0.end) }), ("Status", { $0.status ?? "" })]
        case .immunizations:
            columns = [("Vaccine", \.name), codes, ("Date", { date($0.date) }), ("Status", { $0.status ?? "" })]
        case .results, .vitalSigns:
            columns = [(part.section == .results ? "Test" : "Measurement", \.name), codes, ("Value", Self.value), ("Date", { date($0.date) })]
            if reported { columns.append(("Reported by", { $0.patientReported ? "the patient" : "" })) }
        case .procedures:
            columns = [("Procedure", \.name), codes, ("Date", { date($0.date) }), ("Status", { $0.status ?? "" })]
        case .devices:
            columns = [("Device", \.name), codes, ("Since", { date($0.date) }), ("Status", { $0.status ?? "" })]
        case .planOfCare:
            columns = [("Plan", \.name), codes, ("Start", { date($0.start ?? $0.time) }), ("Due", { date($0.end) }), ("Status", { $0.status ?? "" })]
        }
        if notes { columns.append(("Note", { $0.note ?? "" })) }
        headers = columns.map(\.0)
        rows = facts.map { fact in columns.map { MarkupText.clean($0.1(fact)) ?? "" } }
    }

    static func codes(_ fact: SharedFact) -> String {
        fact.codes.map { code in
            let system = code.system.count > 24 ? String(code.system.suffix(24)) : code.system
            return "\(system) \(code.code)"
        }.joined(separator: ", ")
    }

    static func value(_ fact: SharedFact) -> String {
        let number = fact.value.map(SharedContent.number) ?? fact.textValue ?? ""
        guard !number.isEmpty, let units = fact.units else { return number }
        return number + " " + units
    }

    /// What an empty section says.
    static func nothing(_ section: SharedSection) -> String {
        switch section {
        case .problems: return "There is no information about problems."
        case .allergies: return "There is no information about allergies."
        case .medications: return "There is no information about medications."
        default: return "There is no information."
        }
    }
}
