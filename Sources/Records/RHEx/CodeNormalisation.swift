import HealthRecord

/// An entry's codes as `system → [code]`.
enum CodeNormalisation {
    /// `codes: {"SNOMED-CT": ["42343007"], "ICD-9-CM": ["401.0"]}` in every generation. Codes written
    /// as numbers keep their literal text (ICD-9 `401.0` stays "401.0", never "401"), a bare code is a list of one, null codes are dropped, and a system named twice keeps both lists.
    /// `codes: {}`, `null` or any other shape gives no codes.
    static func codes(_ value: JSONValue?) -> [String: [String]] {
        guard let object = value?.objectValue, !object.members.isEmpty else { return [:] }
        var codes: [String: [String]] = [:]
        codes.reserveCapacity(object.members.count)
        for member in object.members {
            let elements = member.value.arrayValue ?? [member.value]
            var list: [String] = []
            list.reserveCapacity(elements.count)
            var saidNone = false
            for element in elements {
                switch element {
                // "Unknown", "UNK", "null": a source's way of saying there is no code.
                case let .string(code): if CodeValue.isNullLike(code) { saidNone = true } else { list.append(code) }
                case let .number(number): list.append(number.literal)
                default: continue
                }
            }
            // A system whose only codes say "none" is no system of the entry's.
            if member.value.isNull || saidNone && list.isEmpty { continue }
            codes[member.key, default: []].append(contentsOf: list)
        }
        return codes
    }

    /// One string for a set of codes that does not depend on the order the source listed systems or
    /// codes in: systems sorted, codes sorted, with separators that codes do not contain.
    static func canonical(_ codes: [String: [String]]) -> String {
        var text = ""
        for system in codes.keys.sorted() {
            if !text.isEmpty { text.append("\u{1E}") }
            text.append(system)
            text.append("\u{1D}")
            text.append(codes[system, default: []].sorted().joined(separator: "\u{1C}"))
        }
        return text
    }
}
