/// What the source said of a result's value against its range: an HL7 ObservationInterpretation code
/// (v3, the same letters as v2 table 0078): `N` normal, `H`/`L` high/low, `HH`/`LL` critically so, `A`/`AA`
/// abnormal, `POS`/`NEG`, … Every format gives one: C-CDA's `interpretationCode`, FHIR's `interpretation`,
/// RHEx's `interpretation`. A code of another system, or none but words, is taken by its words where they
/// say one of these ("High", "critically low"); otherwise there is none.
public enum ResultInterpretation {
    /// The HL7 codes kept: a code outside them, even from an HL7 system, is no interpretation the app can show.
    public static let codes: Set<String> = [
        "N", "A", "AA", "H", "HH", "HU", "HX", "L", "LL", "LU", "LX", "<", ">",
        "POS", "NEG", "DET", "ND", "IND", "E", "EX", "I", "R", "S", "MS", "VS", "SDD", "SYN-R", "SYN-S", "NS", "NR", "U", "D", "B", "W",
    ]
    /// The codes that say a value lies outside its normal range (or is abnormal): what the web app flags.
    public static let flagged: Set<String> = ["A", "AA", "H", "HH", "HU", "HX", "L", "LL", "LU", "LX", "POS", "DET", "R"]

    /// The systems whose codes are ObservationInterpretation's letters, by every name formats give them.
    static let systems: Set<String> = [
        "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation",
        "http://hl7.org/fhir/v3/ObservationInterpretation",
        "http://terminology.hl7.org/CodeSystem/v2-0078", "http://hl7.org/fhir/v2/0078",
        "2.16.840.1.113883.5.83", "urn:oid:2.16.840.1.113883.5.83", "2.16.840.1.113883.12.78", "urn:oid:2.16.840.1.113883.12.78",
        "HITSP C80 Observation Status", "HL7 ObservationInterpretation", "ObservationInterpretation",
    ]

    /// Words of a display name or text, lower case, to the code they say.
    static let words: [String: String] = [
        "normal": "N", "within normal limits": "N", "wnl": "N",
        "high": "H", "above high normal": "H", "above normal": "H", "elevated": "H",
        "low": "L", "below low normal": "L", "below normal": "L",
        "critically high": "HH", "critical high": "HH", "above upper panic limits": "HH", "panic high": "HH",
        "critically low": "LL", "critical low": "LL", "below lower panic limits": "LL", "panic low": "LL",
        "abnormal": "A", "critically abnormal": "AA", "critical": "AA",
        "positive": "POS", "negative": "NEG", "detected": "DET", "not detected": "ND",
        "resistant": "R", "susceptible": "S", "intermediate": "I",
    ]

    /// The code a coding says: its code when its system is ObservationInterpretation's (or it names none)
    /// and the code is one of `codes`; else what its display name says; else nil.
    public static func code(system: String?, code: String?, display: String?) -> String? {
        if let raw = code?.trimmedWhitespace, !raw.isEmpty {
            let upper = raw.uppercased()
            let isHL7 = system.map { systems.contains($0.trimmedWhitespace) } ?? true
            if isHL7, codes.contains(upper) { return upper }
        }
        return fromWords(display)
    }

    /// The code words say ("High", "Critically low"); nil when they say none of them.
    public static func fromWords(_ text: String?) -> String? {
        guard let text else { return nil }
        let key = text.trimmedWhitespace.lowercased()
        return words[key] ?? (codes.contains(key.uppercased()) && key.count <= 3 ? key.uppercased() : nil)
    }

    /// Whether the code says the value lies outside its normal range.
    public static func isFlagged(_ code: String?) -> Bool { code.map { flagged.contains($0) } ?? false }
}
