#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// BMI-for-age of children and teens, 2 to 20 years, by the CDC 2000 growth charts' LMS method
/// (../shared/growth/README.md): the row is the age in completed months plus 0.5;
/// z = ((BMI/M)^L − 1) / (L·S); percentile = 100·Φ(z). Categories: underweight below the 5th percentile,
/// healthy to below the 85th, overweight to below the 95th, obesity at or above the 95th.
public enum BMIForAge {
    public static let guideline = "the CDC 2000 BMI-for-age growth charts"

    public enum Sex: Sendable { case male, female }

    public enum Category: String, Sendable, CaseIterable {
        case underweight
        case healthy
        case overweight
        case obesity

        public init(percentile: Double) {
            switch percentile {
            case ..<5: self = .underweight
            case ..<85: self = .healthy
            case ..<95: self = .overweight
            default: self = .obesity
            }
        }

        public var label: String { self == .healthy ? "healthy weight" : rawValue }
    }

    public struct Result: Sendable, Equatable {
        public var z: Double
        /// 0–100, unrounded.
        public var percentile: Double
        public var category: Category
    }

    /// Whether the charts apply at this age in completed months: 24 to 240 (2.0 to 20.0 years, through the
    /// month that starts at 240).
    public static func applies(completedMonths: Int64) -> Bool { (24...240).contains(completedMonths) }

    /// The table's (L, M, S) for a sex and age in completed months; nil outside 2–20 years.
    static func lms(_ sex: Sex, completedMonths: Int64) -> (l: Double, m: Double, s: Double)? {
        guard applies(completedMonths: completedMonths) else { return nil }
        let agemos = Double(completedMonths) + 0.5
        let rows = sex == .male ? BMIForAgeTable.boys : BMIForAgeTable.girls
        guard let row = rows.first(where: { $0.agemos == agemos }) else { return nil }
        return (row.l, row.m, row.s)
    }

    public static func evaluate(bmi: Double, sex: Sex, completedMonths: Int64) -> Result? {
        guard bmi > 0, let (l, m, s) = lms(sex, completedMonths: completedMonths) else { return nil }
        let z = (pow(bmi / m, l) - 1) / (l * s)
        let percentile = 100 * 0.5 * erfc(-z / 2.0.squareRoot())
        return Result(z: z, percentile: percentile, category: Category(percentile: percentile))
    }

    /// The BMI at a z-score (the inverse): BMI = M·(1 + L·S·z)^(1/L).
    public static func bmi(atZ z: Double, sex: Sex, completedMonths: Int64) -> Double? {
        guard let (l, m, s) = lms(sex, completedMonths: completedMonths) else { return nil }
        return m * pow(1 + l * s * z, 1 / l)
    }
}
