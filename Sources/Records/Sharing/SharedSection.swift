import HealthRecord

/// The sections of a record handed to a doctor, in the order both documents (the IPS, the CCD) and the
/// printed page give them. `name` is what `?sections=` takes.
public enum SharedSection: String, Sendable, CaseIterable {
    case problems
    case allergies
    case medications
    case immunizations
    case results
    case vitalSigns = "vital-signs"
    case procedures
    case devices
    case pastIllness = "past-illness"
    case planOfCare = "plan-of-care"

    public var name: String { rawValue }

    /// Always in the document: the IPS requires them (an empty one holds an "absent or unknown" entry).
    public var isRequired: Bool { self == .problems || self == .allergies || self == .medications }

    public var title: String {
        switch self {
        case .problems: return "Problems"
        case .allergies: return "Allergies and intolerances"
        case .medications: return "Medications"
        case .immunizations: return "Immunizations"
        case .results: return "Results"
        case .vitalSigns: return "Vital signs"
        case .procedures: return "Procedures"
        case .devices: return "Medical devices"
        case .pastIllness: return "History of past illness"
        case .planOfCare: return "Plan of care"
        }
    }

    public var loinc: String {
        switch self {
        case .problems: return "11450-4"
        case .allergies: return "48765-2"
        case .medications: return "10160-0"
        case .immunizations: return "11369-6"
        case .results: return "30954-2"
        case .vitalSigns: return "8716-3"
        case .procedures: return "47519-4"
        case .devices: return "46264-8"
        case .pastIllness: return "11348-0"
        case .planOfCare: return "18776-5"
        }
    }

    /// LOINC's name of the section code.
    public var loincDisplay: String {
        switch self {
        case .problems: return "Problem list - Reported"
        case .allergies: return "Allergies and adverse reactions Document"
        case .medications: return "History of Medication use Narrative"
        case .immunizations: return "History of Immunization Narrative"
        case .results: return "Relevant diagnostic tests/laboratory data Narrative"
        case .vitalSigns: return "Vital signs"
        case .procedures: return "History of Procedures Document"
        case .devices: return "History of medical device use"
        case .pastIllness: return "History of Past illness Narrative"
        case .planOfCare: return "Plan of care note"
        }
    }

    /// Where an entry goes: a condition that ended (closed status, or an end in the past) is past illness.
    static func of(_ entry: StoredEntry, now: Int64) -> SharedSection? {
        switch entry.type {
        case .condition:
            let closed = entry.status.map { Entry.closedStatuses.contains($0.lowercased()) || $0.lowercased() == "remission" } ?? false
            return closed || (entry.endTime.map { $0 <= now } ?? false) ? .pastIllness : .problems
        case .allergy: return .allergies
        case .medication: return .medications
        case .immunization: return .immunizations
        case .result: return .results
        case .vitalSign: return .vitalSigns
        case .procedure: return .procedures
        case .medicalEquipment: return .devices
        case .careGoal: return .planOfCare
        case .encounter, .socialHistory: return nil
        }
    }

    /// Sections whose entries `?since=` limits: measurements, a visit's worth.
    var isLimitedBySince: Bool { self == .results || self == .vitalSigns }

    /// The longest `?sections=` value worth reading.
    public static let maximumListLength = 512

    /// `problems,results,…`: the sections asked for, in the documents' order, the required ones always in;
    /// nil when a name is not a section (the error names it).
    public static func parseList(_ text: String) -> Result<[SharedSection], UnknownSection> {
        guard text.utf8.count <= maximumListLength else { return .failure(UnknownSection(name: String(text.prefix(64)))) }
        var chosen: Set<SharedSection> = Set(allCases.filter(\.isRequired))
        for part in text.split(separator: ",", omittingEmptySubsequences: true) {
            let name = part.trimmingCharacters(in: " ")
            guard let section = SharedSection(rawValue: name) else { return .failure(UnknownSection(name: String(name.prefix(64)))) }
            chosen.insert(section)
        }
        return .success(allCases.filter(chosen.contains))
    }

    public struct UnknownSection: Error, Sendable, Equatable {
        public var name: String
    }
}

private extension Substring {
    func trimmingCharacters(in character: Character) -> String {
        var text = self
        while text.first == character { text.removeFirst() }
        while text.last == character { text.removeLast() }
        return String(text)
    }
}
