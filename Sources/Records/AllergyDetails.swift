import HealthRecord

/// An allergy's reaction and severity, read from its stored source: a FHIR `AllergyIntolerance`
/// (`reaction[].manifestation`, `reaction[].severity`, else `criticality`), an RHEx/HDS allergy (`reaction`
/// and `severity` as a description, a code, or text), or the `{"reaction", "severity"}` the C-CDA reader keeps.
public enum AllergyDetails {
    /// A stored source larger than this is not an allergy worth reading for two words.
    static let maximumBytes = 256 * 1024
    static let maximumDepth = 16

    /// SNOMED CT severity concepts HDS writes.
    static let severityNames = [
        "255604002": "mild", "6736007": "moderate", "24484000": "severe", "371923003": "mild to moderate",
        "371924009": "moderate to severe", "399166001": "fatal",
    ]

    public static func read(_ source: String) -> (reaction: String?, severity: String?) {
        guard source.utf8.count <= maximumBytes,
              case .object(let object)? = try? JSONDocument.parse(Array(source.utf8), maxBytes: maximumBytes, maxDepth: maximumDepth)
        else { return (nil, nil) }
        if object["resourceType"]?.stringValue == "AllergyIntolerance" { return fhir(object) }
        return (text(object["reaction"], names: [:]), text(object["severity"], names: severityNames))
    }

    private static func fhir(_ resource: JSONObject) -> (String?, String?) {
        let reactions = resource["reaction"]?.arrayValue ?? []
        var manifestations: [String] = []
        var severity: String?
        for reaction in reactions.compactMap(\.objectValue) {
            for manifestation in reaction["manifestation"]?.arrayValue ?? [] {
                // R4: a CodeableConcept; R5: a CodeableReference with its `concept`.
                let concept = manifestation.objectValue.flatMap { $0["concept"]?.objectValue ?? $0 }
                if let name = concept.flatMap(conceptText), !manifestations.contains(name) { manifestations.append(name) }
            }
            severity = severity ?? reaction["severity"]?.stringValue
        }
        if severity == nil, let criticality = resource["criticality"]?.stringValue, criticality != "unable-to-assess" {
            severity = criticality + " criticality"
        }
        return (manifestations.isEmpty ? nil : manifestations.joined(separator: ", "), severity)
    }

    private static func conceptText(_ concept: JSONObject) -> String? {
        if let text = concept["text"]?.stringValue, !text.isEmpty { return text }
        for coding in concept["coding"]?.arrayValue ?? [] {
            if let display = coding.objectValue?["display"]?.stringValue, !display.isEmpty { return display }
        }
        return nil
    }

    /// HDS gives `{"code", "codeSystem"}` (sometimes with `description` or `title`), a `codes` map, or text.
    private static func text(_ value: JSONValue?, names: [String: String]) -> String? {
        switch value {
        case .string(let text)?: return text.isEmpty ? nil : text
        case .object(let object)?:
            for key in ["description", "title", "text", "value"] {
                if let text = object[key]?.stringValue, !text.isEmpty { return text }
            }
            if let code = object["code"]?.stringValue {
                return names[code] ?? ((object["codeSystem"]?.stringValue).map { "\($0) \(code)" } ?? code)
            }
            if case .object(let codes)? = object["codes"], let first = codes.members.first,
               let code = first.value.arrayValue?.first?.stringValue {
                return names[code] ?? "\(first.key) \(code)"
            }
            return nil
        default: return nil
        }
    }
}
