import Foundation

/// Parses the `end` parameter: an RFC 3339 timestamp, `YYYY-MM-DD` (that day's last second, 23:59:59, in
/// the daemon's time zone) or epoch seconds.
public enum WindowEnd {
    /// The longest `end` value worth parsing; anything longer is not a time.
    static let maximumLength = 64

    /// A time as `end` takes it; a `YYYY-MM-DD` day is its last second, or its first when `dayStart` (a
    /// range's lower bound, as search's `from`).
    public static func parse(_ text: String, calendar: Calendar, dayStart: Bool = false) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= maximumLength else { return nil }
        if let seconds = epochSeconds(text) { return seconds }
        if let day = calendarDay(text, calendar: calendar, dayStart: dayStart) { return day }
        return rfc3339(text)
    }

    /// `-?[0-9]+`, within ±10^12 (a range of dates around 30,000 years; more is a mistake, not a date).
    static func epochSeconds(_ text: String) -> Int64? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int64(text),
              abs(value) <= 1_000_000_000_000 else { return nil }
        return value
    }

    static func calendarDay(_ text: String, calendar: Calendar, dayStart: Bool = false) -> Int64? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var components = DateComponents()
        components.year = year
        components.month = month
        components.day = day
        components.hour = dayStart ? 0 : 23
        components.minute = dayStart ? 0 : 59
        components.second = dayStart ? 0 : 59
        guard let date = calendar.date(from: components),
              calendar.component(.day, from: date) == day, calendar.component(.month, from: date) == month
        else { return nil } // 2011-02-30 is not a day
        return Int64(date.timeIntervalSince1970)
    }

    static func rfc3339(_ text: String) -> Int64? {
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds]] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return Int64(date.timeIntervalSince1970.rounded(.down)) }
        }
        return nil
    }
}
