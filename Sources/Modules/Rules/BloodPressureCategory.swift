/// Blood pressure categories of the 2017 ACC/AHA guideline for adults (Whelton et al., "2017
/// ACC/AHA/AAPA/ABC/ACPM/AGS/APhA/ASH/ASPC/NMA/PCNA Guideline for the Prevention, Detection, Evaluation,
/// and Management of High Blood Pressure in Adults", Hypertension 2018;71:e13–e115), with the guideline's
/// "severe" (hypertensive crisis) threshold. A reading's category is the higher of its two numbers'.
public enum BloodPressureCategory: String, Sendable, CaseIterable, Comparable {
    case normal
    case elevated
    case stage1 = "stage_1"
    case stage2 = "stage_2"
    case severe

    public static let guideline = "the 2017 ACC/AHA blood pressure guideline"

    /// normal < 120 and < 80; elevated 120–129 and < 80; stage 1 130–139 or 80–89; stage 2 ≥ 140 or ≥ 90;
    /// severe > 180 or > 120.
    public init(systolic: Double, diastolic: Double) {
        if systolic > 180 || diastolic > 120 { self = .severe }
        else if systolic >= 140 || diastolic >= 90 { self = .stage2 }
        else if systolic >= 130 || diastolic >= 80 { self = .stage1 }
        else if systolic >= 120 { self = .elevated }
        else { self = .normal }
    }

    /// How a message names it.
    public var label: String {
        switch self {
        case .normal: return "normal"
        case .elevated: return "elevated"
        case .stage1: return "stage 1 hypertension"
        case .stage2: return "stage 2 hypertension"
        case .severe: return "severe (above 180/120)"
        }
    }

    var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    public static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }
}
