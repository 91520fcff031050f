/// What became of every statement of an input (a C-CDA entry's clinical statements, a FHIR resource of a
/// mapped type): imported, merged with the same fact given twice, or left out for a stated reason. The
/// import report gives it per patient; `adds` is the identity the corpus test checks.
public struct ImportAccounting: Sendable, Equatable, CustomStringConvertible {
    /// Statements found.
    public var elements = 0
    /// Statements that became an entry.
    public var imported = 0
    /// Statements that were the same fact as another of the input: one entry for both.
    public var merged = 0
    /// Statements left out, by reason (`LeftOut`'s raw values).
    public var leftOut: [String: Int] = [:]

    public init() {}

    /// Why a statement is not an entry.
    public enum LeftOut: String, Sendable, CaseIterable {
        /// The source says it did not happen or is absent (`negationInd`, "no known allergies").
        case negated
        /// The source marks it entered in error (`nullified`, FHIR `entered-in-error`).
        case enteredInError = "entered_in_error"
        /// No code, no words, no value: nothing to show.
        case namesNothing = "names_nothing"
        /// An entry with no statement the reader knows (an act with no observation).
        case noStatement = "no_statement"
        /// An entry of a section the reader has no mapping for (kept as the section's text).
        case unmappedSection = "unmapped_section"
        /// Beyond a named limit (statements in one entry, nesting).
        case overLimit = "over_limit"
        /// A FHIR resource that maps to no entry.
        case noEntry = "no_entry"
        /// A FHIR resource of a mapped type the mapping keeps with the person, not shown.
        case keptNotShown = "kept_not_shown"

        /// The reason in words, for the report.
        public var words: String {
            switch self {
            case .negated: return "said not to be so (negated)"
            case .enteredInError: return "entered in error"
            case .namesNothing: return "no code, no description and no value"
            case .noStatement: return "an entry with no statement to read"
            case .unmappedSection: return "in a section not mapped to entries (kept as its text)"
            case .overLimit: return "over a limit of the reader"
            case .noEntry: return "nothing to show"
            case .keptNotShown: return "kept with the person, not shown"
            }
        }
    }

    public mutating func found(_ count: Int = 1) { elements += count }

    public mutating func leave(_ reason: LeftOut, _ count: Int = 1) {
        guard count > 0 else { return }
        leftOut[reason.rawValue, default: 0] += count
    }

    public var leftOutTotal: Int { leftOut.values.reduce(0, +) }

    /// Every statement ended as one thing.
    public var adds: Bool { elements == imported + merged + leftOutTotal }

    public static func + (a: ImportAccounting, b: ImportAccounting) -> ImportAccounting {
        var out = a
        out.elements += b.elements
        out.imported += b.imported
        out.merged += b.merged
        out.leftOut.merge(b.leftOut, uniquingKeysWith: +)
        return out
    }

    public var description: String {
        "\(elements) elements: \(imported) imported, \(merged) merged, left out \(leftOut.sorted { $0.key < $1.key })"
    }

    /// In words for a terminal: "42 statements: 38 imported, 2 merged, 2 left out (negated 2)".
    public func words(unit: String) -> String {
        var line = "\(elements) \(unit): \(imported) imported, \(merged) merged as duplicates"
        let reasons = leftOut.keys.sorted().map { key in "\(LeftOut(rawValue: key)?.words ?? key): \(leftOut[key]!)" }
        line += reasons.isEmpty ? ", none left out" : ", \(leftOutTotal) left out (" + reasons.joined(separator: "; ") + ")"
        return line
    }
}
