/// Adult BMI categories (20 years and over) of the CDC and WHO: underweight < 18.5, healthy 18.5 to < 25,
/// overweight 25 to < 30, obesity ≥ 30.
public enum AdultBMICategory: String, Sendable, CaseIterable {
    case underweight
    case healthy
    case overweight
    case obesity

    public static let guideline = "the CDC adult BMI categories"

    public init(bmi: Double) {
        switch bmi {
        case ..<18.5: self = .underweight
        case ..<25: self = .healthy
        case ..<30: self = .overweight
        default: self = .obesity
        }
    }

    public var label: String { self == .healthy ? "healthy weight" : rawValue }
}

/// BMI from weight (kg) and height (cm).
public func bodyMassIndex(weight: Double, height: Double) -> Double? {
    guard weight > 0, height > 0 else { return nil }
    let metres = height / 100
    return weight / (metres * metres)
}
