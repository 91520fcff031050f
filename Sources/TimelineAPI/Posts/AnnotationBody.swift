import HTTPKit
import Records
import HealthRecord
import Store

/// The body of `PUT …/annotation`: `{"note", "struck", "reason", "medication": {"quantity", "dose",
/// "directions", "prescriber"}}`, every member optional, nothing else. Text fields are bounded; a member
/// of the wrong type or an unknown one is a `400` that names it.
enum AnnotationBody {
    /// The longest note, reason or medication detail, in bytes of UTF-8.
    static let maximumTextBytes = 16 * 1024
    /// object → medication object → value.
    static let maximumDepth = 3

    static func parse(_ request: Request, limit: Int) throws -> Annotation.Change {
        let object: JSONObject
        do { object = try JSONObjectBody.parse(request, limit: limit, depth: maximumDepth, what: "the annotation") } catch let error as HTTPError
            where error.code == "bad_body" {
            throw bad(error.message)
        }
        var change = Annotation.Change()
        for member in object.members {
            switch member.key {
            case "note": change.note = try text(member.value, "note")
            case "reason": change.reason = try text(member.value, "reason")
            case "struck":
                switch member.value {
                case .bool(let flag): change.struck = flag
                case .null: change.struck = false
                default: throw bad("struck must be true or false.")
                }
            case "medication":
                switch member.value {
                case .null: change.medication = nil
                case .object(let details):
                    var medication = Annotation.Medication()
                    for detail in details.members {
                        let value = try text(detail.value, "medication." + detail.key)
                        switch detail.key {
                        case "quantity": medication.quantity = value
                        case "dose": medication.dose = value
                        case "directions": medication.directions = value
                        case "prescriber": medication.prescriber = value
                        default: throw bad("medication takes quantity, dose, directions and prescriber, not \(detail.key).")
                        }
                    }
                    change.medication = medication.isEmpty ? nil : medication
                default: throw bad("medication must be an object.")
                }
            default:
                throw bad("An annotation takes note, struck, reason and medication, not \(member.key).")
            }
        }
        return change
    }

    private static func text(_ value: JSONValue, _ name: String) throws -> String? {
        switch value {
        case .null: return nil
        case .string(let text):
            guard text.utf8.count <= maximumTextBytes else {
                throw HTTPError(.payloadTooLarge, code: "too_large", message: "\(name) is over \(maximumTextBytes) bytes.")
            }
            guard !text.utf8.contains(0) else { throw bad("\(name) holds a NUL character.") }
            return text.isEmpty ? nil : text
        default: throw bad("\(name) must be a string.")
        }
    }

    private static func bad(_ message: String) -> HTTPError {
        HTTPError(.badRequest, code: "bad_annotation", message: message)
    }
}

extension Annotation {
    /// What a person sends: the whole annotation (a `PUT` replaces it).
    struct Change {
        var note: String?
        var struck = false
        var reason: String?
        var medication: Medication?

        func annotation(entryID: String) -> Annotation {
            Annotation(entryID: entryID, note: note, struck: struck, reason: reason, medication: medication)
        }
    }
}
