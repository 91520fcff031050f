/// What the source gave as a result's normal range: a low and a high bound, each with its unit, and the
/// source's own words for it ("70-99 mg/dL", "Negative", "M 13-18 g/dL; F 12-16 g/dL"). Either bound may
/// be missing ("< 200": a high only). Kept as the source said it; `place` says where a value lies when the
/// range and the value can be compared.
public struct ReferenceRange: Sendable, Equatable {
    public struct Bound: Sendable, Equatable {
        public var value: Double
        /// The unit as the source wrote it (UCUM or not); nil when it gave none.
        public var unit: String?

        public init(value: Double, unit: String? = nil) {
            self.value = value
            self.unit = unit
        }
    }

    public var low: Bound?
    public var high: Bound?
    public var text: String?

    /// Nil when the source said nothing: no bound and no text.
    public init?(low: Bound?, high: Bound?, text: String?) {
        let words = text.map(\.trimmedWhitespace).flatMap { $0.isEmpty ? nil : String($0.prefix(Self.textLimit)) }
        guard low != nil || high != nil || words != nil else { return nil }
        self.low = low
        self.high = high
        self.text = words
    }

    /// The longest text kept: a range is a few words; a source that sends a page there sent something else.
    public static let textLimit = 500

    /// A range from its text alone when the text is one plain range: "70-99", "3.5 – 5.0 mmol/L",
    /// "<200 mg/dL", "> 40", "0.5 to 1.2". The text is kept either way; bounds only when it is that simple
    /// (a range per sex or age, "M 13-18; F 12-16", keeps its text only).
    public static func fromText(_ text: String?) -> ReferenceRange? {
        guard let text else { return nil }
        let bounds = RangeText.bounds(text)
        return ReferenceRange(low: bounds?.low, high: bounds?.high, text: text)
    }

    /// Where a value lies: below, within or above. Nil when it cannot be said: no bounds, or a unit other
    /// than the value's (compared as written, ignoring case and spaces: no conversion).
    public func place(_ value: Double, unit: String?) -> Placement? {
        guard low != nil || high != nil else { return nil }
        for bound in [low, high].compactMap({ $0 }) where !Self.sameUnit(bound.unit, unit) { return nil }
        if let low, value < low.value { return .below }
        if let high, value > high.value { return .above }
        return .within
    }

    public enum Placement: String, Sendable, Equatable {
        case below, within, above
    }

    /// Units match when either is missing or they read the same ignoring case and spaces ("mg/dL", "mg/dl").
    static func sameUnit(_ a: String?, _ b: String?) -> Bool {
        guard let a = normalisedUnit(a), let b = normalisedUnit(b) else { return true }
        return a == b
    }

    private static func normalisedUnit(_ unit: String?) -> String? {
        guard let unit else { return nil }
        let text = unit.lowercased().filter { !$0.isWhitespace }
        return text.isEmpty || text == "1" ? nil : text
    }
}

/// The bounds of a range written as plain text.
enum RangeText {
    static func bounds(_ text: String) -> (low: ReferenceRange.Bound?, high: ReferenceRange.Bound?)? {
        var rest = Substring(text.trimmedWhitespace)
        guard !rest.isEmpty, rest.count <= 64 else { return nil }
        func skipSpaces() { while rest.first?.isWhitespace == true { rest.removeFirst() } }
        func number() -> Double? {
            skipSpaces()
            var digits = ""
            if rest.first == "-" || rest.first == "+" { digits.append(rest.removeFirst()) }
            while let c = rest.first, c.isASCII, c.isNumber || c == "." { digits.append(rest.removeFirst()) }
            return digits.contains(where: \.isNumber) ? Double(digits) : nil
        }
        func unit() -> String? {
            skipSpaces()
            let word = rest.trimmedWhitespace
            // A unit is one word without digits' company: "mg/dL", "10*3/uL", "%"; anything longer is not a plain range.
            guard !word.isEmpty else { return nil }
            return word.contains(where: \.isWhitespace) ? "\u{0}" : String(word)
        }
        var comparator: Character?
        if let c = rest.first, "<>≤≥".contains(c) {
            comparator = c
            rest.removeFirst()
            if rest.first == "=" { rest.removeFirst() }
        }
        guard let first = number() else { return nil }
        if let comparator {
            let u = unit()
            guard u != "\u{0}" else { return nil }
            let bound = ReferenceRange.Bound(value: first, unit: u)
            return comparator == "<" || comparator == "≤" ? (nil, bound) : (bound, nil)
        }
        skipSpaces()
        if rest.hasPrefix("to ") { rest.removeFirst(3) } else if let c = rest.first, c == "-" || c == "–" || c == "—" { rest.removeFirst() } else { return nil }
        guard let second = number(), first <= second else { return nil }
        let u = unit()
        guard u != "\u{0}" else { return nil }
        return (ReferenceRange.Bound(value: first, unit: u), ReferenceRange.Bound(value: second, unit: u))
    }
}
