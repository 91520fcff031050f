/// Why a FHIR input, or one resource of it, could not be imported.
public enum FHIRError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is not JSON (or not UTF-8, too deep, too large): nothing of it was read.
    case notJSON(JSONScanError)
    /// JSON, but not FHIR: no `resourceType`, an array at the top, a bundle whose `entry` is not a list…
    case notFHIR(String)
    /// A field the mapping reads has the wrong type or form (`"effectiveDateTime": 12`): the resource, and
    /// with it the patient it belongs to, is not imported.
    case badField(resource: String, path: String, expected: String)
    /// More resources, files or bytes than an import takes.
    case overLimit(String)

    public var description: String {
        switch self {
        case let .notJSON(error): return String(describing: error)
        case let .notFHIR(reason): return "not FHIR R4 JSON: \(reason)"
        case let .badField(resource, path, expected): return "\(resource): \(path) must be \(expected)"
        case let .overLimit(reason): return reason
        }
    }
}
