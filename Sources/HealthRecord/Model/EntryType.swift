/// The kinds of clinical entry shown on the timeline, one per record section.
public enum EntryType: String, Sendable, CaseIterable, Codable, Hashable {
    case allergy
    case condition
    case encounter
    case immunization
    case medication
    case procedure
    case result
    case vitalSign = "vital_sign"
    // From FHIR and C-CDA (RHEx records keep these sections raw, not shown).
    case socialHistory = "social_history"
    case careGoal = "care_goal"
    case medicalEquipment = "medical_equipment"

    /// The record section that holds this type (`conditions`, `vital_signs`, …).
    public var section: String {
        switch self {
        case .allergy: return "allergies"
        case .condition: return "conditions"
        case .encounter: return "encounters"
        case .immunization: return "immunizations"
        case .medication: return "medications"
        case .procedure: return "procedures"
        case .result: return "results"
        case .vitalSign: return "vital_signs"
        case .socialHistory: return "social_history"
        case .careGoal: return "care_goals"
        case .medicalEquipment: return "medical_equipment"
        }
    }

    public init?(section: String) {
        guard let type = EntryType.allCases.first(where: { $0.section == section }) else { return nil }
        self = type
    }
}
