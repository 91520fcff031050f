/// Lipid ranges of the NCEP Adult Treatment Panel III (2002), the ones lab reports print, in mg/dL:
/// total cholesterol < 200 desirable, 200–239 borderline high, ≥ 240 high; LDL < 100 optimal, 100–129 near
/// optimal, 130–159 borderline high, 160–189 high, ≥ 190 very high; HDL < 40 low, ≥ 60 high;
/// triglycerides < 150 normal, 150–199 borderline high, 200–499 high, ≥ 500 very high.
public enum LipidRange: String, Sendable, CaseIterable {
    case desirable
    case optimal
    case nearOptimal = "near_optimal"
    case normal
    case borderlineHigh = "borderline_high"
    case high
    case veryHigh = "very_high"
    case low

    public static let guideline = "the NCEP ATP III cholesterol ranges"

    public init(total value: Double) {
        self = value >= 240 ? .high : value >= 200 ? .borderlineHigh : .desirable
    }

    public init(ldl value: Double) {
        self = value >= 190 ? .veryHigh : value >= 160 ? .high : value >= 130 ? .borderlineHigh : value >= 100 ? .nearOptimal : .optimal
    }

    public init(hdl value: Double) {
        self = value < 40 ? .low : value >= 60 ? .high : .normal
    }

    public init(triglycerides value: Double) {
        self = value >= 500 ? .veryHigh : value >= 200 ? .high : value >= 150 ? .borderlineHigh : .normal
    }

    public var label: String { rawValue.split(separator: "_").joined(separator: " ") }
}
