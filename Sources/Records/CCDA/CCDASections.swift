import HealthRecord

/// The sections of a C-CDA (R1.1, R2.1) or HITSP C32 document the reader knows: by templateId root (the
/// `extension` dates do not matter), else by the section's LOINC code.
enum CCDASection: CaseIterable {
    case allergies, problems, medications, immunizations, results, vitalSigns, encounters, procedures
    case socialHistory, planOfCare, goals, medicalEquipment, functionalStatus

    var entryType: EntryType {
        switch self {
        case .allergies: return .allergy
        case .problems: return .condition
        case .medications: return .medication
        case .immunizations: return .immunization
        case .results, .functionalStatus: return .result
        case .vitalSigns: return .vitalSign
        case .encounters: return .encounter
        case .procedures: return .procedure
        case .socialHistory: return .socialHistory
        case .planOfCare, .goals: return .careGoal
        case .medicalEquipment: return .medicalEquipment
        }
    }

    /// C-CDA templates (entries optional and required), then HITSP C32 / IHE PCC ones.
    var templates: [String] {
        switch self {
        case .allergies: return ["2.16.840.1.113883.10.20.22.2.6", "2.16.840.1.113883.10.20.22.2.6.1", "2.16.840.1.113883.10.20.1.2",
                                 "2.16.840.1.113883.3.88.11.83.102", "1.3.6.1.4.1.19376.1.5.3.1.3.13"]
        // With Past Medical History (2.16.840.1.113883.10.20.22.2.20): resolved problems, as hreaderd's CCD writes them.
        case .problems: return ["2.16.840.1.113883.10.20.22.2.5", "2.16.840.1.113883.10.20.22.2.5.1", "2.16.840.1.113883.10.20.1.11",
                                "2.16.840.1.113883.3.88.11.83.103", "1.3.6.1.4.1.19376.1.5.3.1.3.6", "2.16.840.1.113883.10.20.22.2.20"]
        case .medications: return ["2.16.840.1.113883.10.20.22.2.1", "2.16.840.1.113883.10.20.22.2.1.1", "2.16.840.1.113883.10.20.1.8",
                                   "2.16.840.1.113883.3.88.11.83.112", "1.3.6.1.4.1.19376.1.5.3.1.3.19"]
        case .immunizations: return ["2.16.840.1.113883.10.20.22.2.2", "2.16.840.1.113883.10.20.22.2.2.1", "2.16.840.1.113883.10.20.1.6",
                                     "2.16.840.1.113883.3.88.11.83.117", "1.3.6.1.4.1.19376.1.5.3.1.3.23"]
        case .results: return ["2.16.840.1.113883.10.20.22.2.3", "2.16.840.1.113883.10.20.22.2.3.1", "2.16.840.1.113883.10.20.1.14",
                               "2.16.840.1.113883.3.88.11.83.122", "1.3.6.1.4.1.19376.1.5.3.1.3.28"]
        case .vitalSigns: return ["2.16.840.1.113883.10.20.22.2.4", "2.16.840.1.113883.10.20.22.2.4.1", "2.16.840.1.113883.10.20.1.16",
                                  "2.16.840.1.113883.3.88.11.83.119", "1.3.6.1.4.1.19376.1.5.3.1.3.25"]
        case .encounters: return ["2.16.840.1.113883.10.20.22.2.22", "2.16.840.1.113883.10.20.22.2.22.1", "2.16.840.1.113883.10.20.1.3",
                                  "2.16.840.1.113883.3.88.11.83.127", "1.3.6.1.4.1.19376.1.5.3.1.1.5.3.3"]
        case .procedures: return ["2.16.840.1.113883.10.20.22.2.7", "2.16.840.1.113883.10.20.22.2.7.1", "2.16.840.1.113883.10.20.1.12",
                                  "2.16.840.1.113883.3.88.11.83.108", "1.3.6.1.4.1.19376.1.5.3.1.3.12"]
        case .socialHistory: return ["2.16.840.1.113883.10.20.22.2.17", "2.16.840.1.113883.10.20.1.15", "2.16.840.1.113883.3.88.11.83.126"]
        case .planOfCare: return ["2.16.840.1.113883.10.20.22.2.10", "2.16.840.1.113883.10.20.1.10"]
        case .goals: return ["2.16.840.1.113883.10.20.22.2.60"]
        case .medicalEquipment: return ["2.16.840.1.113883.10.20.22.2.23", "2.16.840.1.113883.10.20.1.7", "2.16.840.1.113883.3.88.11.83.128"]
        case .functionalStatus: return ["2.16.840.1.113883.10.20.22.2.14", "2.16.840.1.113883.10.20.1.5"]
        }
    }

    /// The section's LOINC code, for documents that give no template the reader knows.
    var loinc: String {
        switch self {
        case .allergies: return "48765-2"
        case .problems: return "11450-4"
        case .medications: return "10160-0"
        case .immunizations: return "11369-6"
        case .results: return "30954-2"
        case .vitalSigns: return "8716-3"
        case .encounters: return "46240-8"
        case .procedures: return "47519-4"
        case .socialHistory: return "29762-2"
        case .planOfCare: return "18776-5"
        case .goals: return "61146-7"
        case .medicalEquipment: return "46264-8"
        case .functionalStatus: return "47420-5"
        }
    }

    static func of(templates: [String], code: String?) -> CCDASection? {
        for section in allCases where section.templates.contains(where: templates.contains) { return section }
        guard let code else { return nil }
        return allCases.first { $0.loinc == code }
    }
}
