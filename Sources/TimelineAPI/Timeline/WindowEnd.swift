import FoundationEssentials
import HealthRecord
import Store

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

    /// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` (RFC 3339 §5.6, `t` and `z` in either case), each field in
    /// its range and the day in its month; the fraction is dropped (seconds are what the store keeps).
    static func rfc3339(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<(start + count)] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        func at(_ index: Int, _ character: Character) -> Bool { index < bytes.count && bytes[index] == character.asciiValue }
        guard let year = number(0, 4), at(4, "-"), let month = number(5, 2), at(7, "-"), let day = number(8, 2),
              at(10, "T") || at(10, "t"), let hour = number(11, 2), at(13, ":"), let minute = number(14, 2), at(16, ":"),
              let second = number(17, 2), (1...12).contains(month), (0...23).contains(hour), (0...59).contains(minute),
              (0...60).contains(second) else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthLengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...monthLengths[month - 1]).contains(day) else { return nil }
        var index = 19
        if at(index, ".") {
            index += 1
            let digits = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
            guard index > digits else { return nil }
        }
        var offset = 0
        if at(index, "Z") || at(index, "z") {
            index += 1
        } else if at(index, "+") || at(index, "-") {
            let sign = at(index, "-") ? -1 : 1
            guard let hours = number(index + 1, 2), at(index + 3, ":"), let minutes = number(index + 4, 2), hours <= 23, minutes <= 59 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
            index += 6
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let epochDays = CivilDate.epochDays(year: Int64(year), month: Int64(month), day: Int64(day))
        return epochDays * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59) - offset)
    }
}
