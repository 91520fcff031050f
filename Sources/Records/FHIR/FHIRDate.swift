import HealthRecord

/// FHIR's `date`, `dateTime` and `instant` (`2012`, `2012-04`, `2012-04-15`, `2012-04-15T10:30:00-05:00`,
/// with fractions of a second) as epoch seconds, without Foundation's calendars.
///
/// A value with a time carries its offset (FHIR requires one) and is exact. A value without a time is a
/// day, a month or a year in no time zone: it is read as noon UTC of its first day, so that it shows as
/// that day in every time zone from UTC−11 to UTC+11 (midnight UTC would show as the day before in the
/// Americas). A time without an offset, which FHIR forbids but sources write, is read as UTC.
public enum FHIRDate {
    public enum Precision: Int, Sendable, Comparable {
        case year, month, day, seconds
        public static func < (a: Precision, b: Precision) -> Bool { a.rawValue < b.rawValue }
    }

    /// Seconds since the epoch and how precise the source was; nil when the text is not a FHIR date.
    public static func parse(_ text: String) -> (seconds: Int64, precision: Precision)? {
        var bytes = Array(text.utf8)[...]
        func number(_ count: Int) -> Int? {
            guard bytes.count >= count else { return nil }
            var value = 0
            for byte in bytes.prefix(count) {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            bytes = bytes.dropFirst(count)
            return value
        }
        func take(_ byte: UInt8) -> Bool {
            guard bytes.first == byte else { return false }
            bytes = bytes.dropFirst()
            return true
        }
        guard let year = number(4), year >= 1 else { return nil }
        guard take(UInt8(ascii: "-")) else {
            return bytes.isEmpty ? (noon(year, 1, 1), .year) : nil
        }
        guard let month = number(2), (1...12).contains(month) else { return nil }
        guard take(UInt8(ascii: "-")) else {
            return bytes.isEmpty ? (noon(year, month, 1), .month) : nil
        }
        guard let day = number(2), day >= 1, day <= daysIn(month, year) else { return nil }
        guard take(UInt8(ascii: "T")) else {
            return bytes.isEmpty ? (noon(year, month, day), .day) : nil
        }
        guard let hour = number(2), hour <= 24, take(UInt8(ascii: ":")), let minute = number(2), minute <= 59 else { return nil }
        // FHIR's dateTime always has seconds; a fraction of a second is dropped.
        guard take(UInt8(ascii: ":")), let second = number(2), second <= 60 else { return nil }
        if take(UInt8(ascii: ".")) {
            var digits = 0
            while let byte = bytes.first, byte >= 0x30, byte <= 0x39 { bytes = bytes.dropFirst(); digits += 1 }
            guard digits > 0 else { return nil }
        }
        var offset = 0
        if take(UInt8(ascii: "Z")) {
            offset = 0
        } else if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            bytes = bytes.dropFirst()
            guard let h = number(2), h <= 14, take(UInt8(ascii: ":")), let m = number(2), m <= 59 else { return nil }
            offset = (h * 3600 + m * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
        }
        guard bytes.isEmpty else { return nil }
        let seconds = CivilDate.epochDays(year: Int64(year), month: Int64(month), day: Int64(day)) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offset)
        return (seconds, .seconds)
    }

    private static func noon(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        CivilDate.epochDays(year: Int64(year), month: Int64(month), day: Int64(day)) * 86_400 + 43_200
    }

    private static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
