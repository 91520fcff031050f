import HealthRecord

/// RFC 3339 timestamps in UTC (`2025-10-31T00:00:00Z`), as the manifest and `current.json` carry them,
/// through `CivilDate`: no Foundation calendars.
package enum Timestamp {
    package static func format(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
        let rest = seconds - days * 86_400
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return CivilDate(epochDays: days).text + "T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))Z"
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` → epoch seconds; nil for anything else.
    package static func parse(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 20 else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for i in range {
                guard b[i] >= 0x30 && b[i] <= 0x39 else { return nil }
                value = value * 10 + Int64(b[i] - 0x30)
            }
            return value
        }
        guard b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54 || b[10] == 0x74, b[13] == 0x3A, b[16] == 0x3A,
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var index = 19
        if b[index] == 0x2E {
            index += 1
            let start = index
            while index < b.count, b[index] >= 0x30 && b[index] <= 0x39 { index += 1 }
            guard index > start else { return nil }
        }
        guard index < b.count else { return nil }
        var offset: Int64 = 0
        if b[index] == 0x5A || b[index] == 0x7A {
            index += 1
        } else if b[index] == 0x2B || b[index] == 0x2D, index + 6 == b.count, b[index + 3] == 0x3A,
                  let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6) {
            offset = (hours * 60 + minutes) * 60 * (b[index] == 0x2D ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == b.count else { return nil }
        let days = CivilDate.epochDays(year: year, month: month, day: day)
        guard CivilDate(epochDays: days) == CivilDate(year: year, month: month, day: day) else { return nil }
        return days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offset
    }
}
