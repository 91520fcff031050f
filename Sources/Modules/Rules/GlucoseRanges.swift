/// Glucose and HbA1c ranges of the American Diabetes Association's Standards of Care in Diabetes
/// (section 2, "Diagnosis and Classification of Diabetes", and section 6 for hypoglycemia): fasting plasma
/// glucose < 100 mg/dL normal, 100–125 prediabetes range, ≥ 126 diabetes range; a random glucose ≥ 200 is
/// in the diabetes range; HbA1c < 5.7 % normal, 5.7–6.4 % prediabetes range, ≥ 6.5 % diabetes range;
/// glucose < 70 mg/dL is low (level 1), < 54 very low (level 2). A range reached is not a diagnosis: the
/// standards ask for a repeat test.
public enum GlucoseRange: String, Sendable, CaseIterable {
    case low
    case veryLow = "very_low"
    case normal
    case prediabetes
    case diabetes
    /// A value with no range that applies (a glucose after a meal below 200, say).
    case notClassified = "not_classified"

    public static let guideline = "the ADA Standards of Care in Diabetes"

    /// A glucose (mg/dL): fasting values by the fasting ranges, others only by the random threshold.
    public init(glucose: Double, fasting: Bool) {
        if glucose < 54 { self = .veryLow }
        else if glucose < 70 { self = .low }
        else if fasting { self = glucose >= 126 ? .diabetes : glucose >= 100 ? .prediabetes : .normal }
        else { self = glucose >= 200 ? .diabetes : .notClassified }
    }

    /// An HbA1c (%).
    public init(hba1c: Double) {
        self = hba1c >= 6.5 ? .diabetes : hba1c >= 5.7 ? .prediabetes : .normal
    }

    public var label: String {
        switch self {
        case .low: return "low"
        case .veryLow: return "very low"
        case .normal: return "in the normal range"
        case .prediabetes: return "in the prediabetes range"
        case .diabetes: return "in the diabetes range"
        case .notClassified: return "not classified"
        }
    }

    /// Whether a message should suggest talking to a clinician.
    public var isFlagged: Bool { self != .normal && self != .notClassified }
}
