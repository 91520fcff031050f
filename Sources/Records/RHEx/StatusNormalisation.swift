/// An entry's status as one lower-case word, from whichever form the record generation uses.
enum StatusNormalisation {
    /// The SNOMED-CT status concepts HDS writes for problems, medications and allergies.
    static let snomedStatuses: [String: String] = [
        "55561003": "active",
        "73425007": "inactive",
        "413322009": "resolved",
    ]

    /// The status, preferring what the source states most directly:
    /// 1. `status: "completed"` (Gen 1: hreader_hs_henry_smith.json results and vital signs);
    /// 2. `status_code: {"HL7 ActStatus": ["completed"]}` or `{"SNOMED-CT": ["55561003"]}` (Gen 2/3:
    ///    hds_v4_barry_berry.json vital signs and results);
    /// 3. HDS's coded `problemStatus` / `statusOfMedication`, `{"code": …, "codeSystem": …}`
    ///    (hds_v4_barry_berry.json conditions and medications).
    /// nil when none of them gives a word; a SNOMED-CT code we do not know is not a word.
    static func status(status: JSONValue?, statusCode: JSONValue?, coded: [JSONValue?]) -> String? {
        if let word = word(from: status) { return word }
        if let word = word(from: statusCode) { return word }
        for candidate in coded {
            if let word = word(from: candidate) { return word }
        }
        return nil
    }

    private static func word(from value: JSONValue?) -> String? {
        switch value {
        case let .string(string)?:
            return normalisedWord(string)
        case let .object(object)?:
            if case .string? = object["code"] {
                // `{"code": …, "codeSystem": …}`
                let system = object["codeSystem"]?.stringValue ?? ""
                return word(code: object["code"], system: system)
            }
            // `{system: [codes]}`, systems in source order.
            for member in object.members {
                let codes = member.value.arrayValue ?? [member.value]
                for code in codes {
                    if let word = word(code: code, system: member.key) { return word }
                }
            }
            return nil
        default:
            return nil
        }
    }

    private static func word(code: JSONValue?, system: String) -> String? {
        let text: String
        switch code {
        case let .string(string)?: text = string
        case let .number(number)?: text = number.literal
        default: return nil
        }
        if system.uppercased().hasPrefix("SNOMED") || text.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) {
            return snomedStatuses[text.trimmingSpaces]
        }
        return normalisedWord(text)
    }

    private static func normalisedWord(_ string: String) -> String? {
        // Nearly every status is already a trimmed lower-case ASCII word ("completed"): keep it as is
        // rather than paying for Unicode-aware trimming and case mapping on every entry.
        if let first = string.utf8.first, let last = string.utf8.last,
           first != UInt8(ascii: " "), last != UInt8(ascii: " "),
           string.utf8.allSatisfy({ $0 &- UInt8(ascii: "a") < 26 || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }) {
            return string
        }
        let trimmed = string.trimmingSpaces
        return trimmed.isEmpty ? nil : trimmed.lowercased()
    }
}

extension String {
    /// Without leading and trailing whitespace (Foundation-free).
    var trimmingSpaces: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
