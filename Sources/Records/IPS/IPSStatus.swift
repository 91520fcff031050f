/// The record's status words (RHEx, FHIR, C-CDA, lower case) as each FHIR resource's required status codes.
enum IPSStatus {
    static func condition(_ fact: SharedFact) -> String {
        switch fact.status {
        case "resolved"?, "completed"?: return "resolved"
        case "inactive"?, "cancelled"?, "aborted"?: return "inactive"
        case "remission"?: return "remission"
        case "recurrence"?: return "recurrence"
        case "relapse"?: return "relapse"
        default: return fact.end != nil ? "resolved" : "active"
        }
    }

    static func allergy(_ fact: SharedFact) -> String {
        switch fact.status {
        case "resolved"?, "completed"?: return "resolved"
        case "inactive"?, "cancelled"?, "aborted"?: return "inactive"
        default: return "active"
        }
    }

    static func medication(_ fact: SharedFact) -> String {
        switch fact.status {
        case let status? where ["active", "completed", "intended", "stopped", "on-hold", "not-taken"].contains(status): return status
        case "aborted"?, "cancelled"?: return "stopped"
        case "inactive"?, "resolved"?: return "completed"
        case "new"?: return "intended"
        case "held"?: return "on-hold"
        default: return fact.end.map { _ in "completed" } ?? "unknown"
        }
    }

    static func observation(_ fact: SharedFact) -> String {
        switch fact.status {
        case let status? where ["registered", "preliminary", "final", "amended", "corrected", "cancelled"].contains(status): return status
        default: return "final"
        }
    }

    static func procedure(_ fact: SharedFact) -> String {
        switch fact.status {
        case let status? where ["preparation", "in-progress", "not-done", "on-hold", "stopped", "completed"].contains(status): return status
        case "active"?: return "in-progress"
        case "aborted"?: return "stopped"
        case "cancelled"?: return "not-done"
        case "new"?: return "preparation"
        default: return "completed"
        }
    }

    static func deviceUse(_ fact: SharedFact) -> String {
        switch fact.status {
        case let status? where ["active", "completed", "intended", "stopped", "on-hold"].contains(status): return status
        case "inactive"?: return "completed"
        default: return "active"
        }
    }

    static func carePlan(_ fact: SharedFact) -> String {
        switch fact.status {
        case let status? where ["draft", "active", "on-hold", "revoked", "completed"].contains(status): return status
        case "cancelled"?: return "revoked"
        default: return "unknown"
        }
    }
}
