import HealthRecord

extension CivilDate {
    /// "Nov 24, 2026": how the web app writes a day, so that a message reads like the tile around it.
    var shown: String {
        let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(names[Int(month - 1)]) \(day), \(year)"
    }
}

/// Ages, as the rules need them.
public enum Age {
    /// Birth dates are stored as a day's start in some time zone: half a day later is that day in every zone.
    static let birthDayShift: Int64 = 12 * 3600

    /// Completed months between a birth date and a time (the growth tables' age).
    public static func completedMonths(from birth: Int64, to time: Int64) -> Int64 {
        let b = CivilDate(epochSeconds: birth + birthDayShift), t = CivilDate(epochSeconds: time + birthDayShift)
        var months = (t.year - b.year) * 12 + (t.month - b.month)
        if t.day < b.day { months -= 1 }
        return months
    }

    /// Age in years, to a twelfth: completed months / 12.
    public static func years(from birth: Int64, to time: Int64) -> Double {
        Double(completedMonths(from: birth, to: time)) / 12
    }
}
