import HealthRecord

/// FHIR instants (`2026-01-01T00:00:00Z`, `2026-01-01T00:00:00.250+02:00`) as milliseconds since the
/// epoch, for `meta.lastUpdated`, `_since` and `_lastUpdated`.
enum Instant {
    /// `YYYY-MM-DDThh:mm:ss[.fff]Z`, the fraction only when there is one.
    static func format(milliseconds: Int64) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let fraction = milliseconds - seconds * 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let date = CivilDate(epochDays: days), (year, month, day) = (date.year, date.month, date.day)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(secondOfDay / 3600, 2) + ":"
            + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if fraction != 0 { text += "." + pad(fraction, 3) }
        return text + "Z"
    }

    /// Milliseconds since the epoch of an instant or a date (`2026-01-01`, midnight UTC; `2026-01`,
    /// `2026`), as FHIR search accepts them; nil when malformed. A time needs its zone, and a `+` zone
    /// must arrive as `+`: a client that forgot to percent-encode it sends a space, which is refused.
    static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        var index = 0
        func digits(_ count: Int) -> Int64? {
            guard index + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + count] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
        func expect(_ character: Character) -> Bool {
            guard index < bytes.count, bytes[index] == character.asciiValue else { return false }
            index += 1
            return true
        }
        guard let year = digits(4) else { return nil }
        var month: Int64 = 1
        var day: Int64 = 1
        if index < bytes.count {
            guard expect("-"), let m = digits(2), (1...12).contains(m) else { return nil }
            month = m
            if index < bytes.count {
                guard expect("-"), let d = digits(2), (1...31).contains(d) else { return nil }
                day = d
            }
        }
        var milliseconds = CivilDate.epochDays(year: year, month: month, day: day) * 86_400_000
        guard index < bytes.count else { return milliseconds }
        guard expect("T"), let hour = digits(2), hour < 24, expect(":"), let minute = digits(2), minute < 60 else { return nil }
        var second: Int64 = 0
        if expect(":") {
            guard let s = digits(2), s < 61 else { return nil }
            second = s
            if expect(".") {
                let start = index
                while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
                guard index > start else { return nil }
                let fraction = String(decoding: bytes[start..<min(index, start + 3)], as: UTF8.self)
                milliseconds += Int64(fraction + String(repeating: "0", count: 3 - fraction.count)) ?? 0
            }
        }
        milliseconds += ((hour * 60 + minute) * 60 + second) * 1000
        guard index < bytes.count else { return nil }
        if expect("Z") {
            return index == bytes.count ? milliseconds : nil
        }
        let sign: Int64
        if expect("+") {
            sign = 1
        } else if expect("-") {
            sign = -1
        } else {
            return nil
        }
        guard let zoneHour = digits(2), zoneHour < 24, expect(":"), let zoneMinute = digits(2), zoneMinute < 60,
              index == bytes.count else { return nil }
        return milliseconds - sign * (zoneHour * 60 + zoneMinute) * 60_000
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
