/// The form in which names are compared: lower case, accents removed (Latin letters; combining marks
/// dropped), apostrophes removed (`Alzheimer's` → `alzheimers`), every other run of non-letters and
/// non-digits one space, trimmed. `Crème Brûlée` → `creme brulee`; `Diabetes, Type 2` → `diabetes type 2`.
/// No ICU: the standard library's lower-casing and a table of the Latin letters with diacritics.
package enum NameKey {
    package static func normalise(_ text: String) -> String { normalise(text, joiningApostrophes: true) }

    /// With `joiningApostrophes` false an apostrophe separates words, as the search index's tokenizer
    /// (FTS4's unicode61) splits them: `alzheimer's` → `alzheimer s`.
    static func normalise(_ text: String, joiningApostrophes: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for scalar in text.lowercased().unicodeScalars {
            if (0x300...0x36F).contains(scalar.value) { continue }  // combining diacritical marks
            if joiningApostrophes, scalar == "'" || scalar == "\u{2019}" || scalar == "\u{2018}" { continue }
            let folded: Substring
            if scalar.value < 0x80 {
                let byte = UInt8(scalar.value)
                let isWordByte = (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                if !isWordByte { pendingSpace = !out.isEmpty; continue }
                folded = Substring(String(scalar))
            } else if let base = fold[scalar] {
                folded = base[...]
            } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                folded = Substring(String(scalar))
            } else {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace { out.append(" "); pendingSpace = false }
            out.append(contentsOf: folded)
        }
        return out
    }

    /// The words of a text as the search index holds them.
    package static func searchWords(_ text: String) -> [Substring] {
        normalise(text, joiningApostrophes: false).split(separator: " ")
    }

    /// SNOMED CT's semantic tags that a description may end with: `Diabetes mellitus type 2 (disorder)`.
    static let semanticTags = ["(disorder)", "(finding)", "(situation)", "(procedure)", "(observable entity)",
                               "(morphologic abnormality)", "(regime/therapy)", "(event)"]

    /// An entry's description as a name to look up: the normalised text, less a SNOMED CT semantic tag.
    static func entryName(_ description: String) -> String {
        var text = description.trimmingSpaces()
        for tag in semanticTags where text.lowercased().hasSuffix(tag) {
            text = String(text.dropLast(tag.count))
        }
        return normalise(text)
    }

    private static let fold: [Unicode.Scalar: String] = {
        let groups: [(String, String)] = [
            ("a", "àáâãäåāăąǎ"), ("c", "çćĉċč"), ("d", "ďđ"), ("e", "èéêëēĕėęě"), ("g", "ĝğġģ"), ("h", "ĥħ"),
            ("i", "ìíîïĩīĭįıǐ"), ("j", "ĵ"), ("k", "ķ"), ("l", "ĺļľŀł"), ("n", "ñńņňŉ"), ("o", "òóôõöøōŏőǒ"),
            ("r", "ŕŗř"), ("s", "śŝşšș"), ("t", "ţťŧț"), ("u", "ùúûüũūŭůűųǔ"), ("w", "ŵ"), ("y", "ýÿŷ"), ("z", "źżž"),
            ("ae", "æ"), ("oe", "œ"), ("ss", "ß"), ("th", "þ"), ("dh", "ð"),
        ]
        var table: [Unicode.Scalar: String] = [:]
        for (base, letters) in groups {
            for scalar in letters.unicodeScalars { table[scalar] = base }
        }
        return table
    }()
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var text = self[...]
        while text.first?.isWhitespace == true { text = text.dropFirst() }
        while text.last?.isWhitespace == true { text = text.dropLast() }
        return String(text)
    }
}
