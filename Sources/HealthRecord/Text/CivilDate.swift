/// A day of the proleptic Gregorian calendar, and its count of days from 1970-01-01 both ways (Howard
/// Hinnant's `days_from_civil` and `civil_from_days`): dates without Foundation's calendars, for the
/// readers' timestamps (FHIR, HL7), the timeline's window ends and the ages the summary's rules need.
public struct CivilDate: Equatable, Sendable {
    public var year: Int64
    public var month: Int64
    public var day: Int64

    public init(year: Int64, month: Int64, day: Int64) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day a count of days since 1970-01-01 falls on.
    public init(epochDays days: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = doy - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// The (UTC) day epoch seconds fall on; seconds before 1970 round down to their day.
    public init(epochSeconds seconds: Int64) {
        self.init(epochDays: seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400))
    }

    /// Days since 1970-01-01 (negative before).
    public var epochDays: Int64 { Self.epochDays(year: year, month: month, day: day) }

    public static func epochDays(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// `YYYY-MM-DD`.
    public var text: String {
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))"
    }
}
