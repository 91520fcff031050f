import HealthRecord

/// HL7 v3 `TS` (`2012`, `201204`, `20120415`, `20120415093000`, `20120415093000.123-0500`) as epoch
/// seconds. Like FHIR's dates: a value without a time is a day, month or year in no time zone, read as
/// noon UTC of its first day; a time without an offset is read as UTC.
enum HL7Time {
    static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        var digits: [Int] = []
        var index = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            digits.append(Int(bytes[index] - 0x30))
            index += 1
        }
        func number(_ from: Int, _ count: Int) -> Int? {
            guard digits.count >= from + count else { return nil }
            return digits[from..<(from + count)].reduce(0) { $0 * 10 + $1 }
        }
        guard let year = number(0, 4), year >= 1 else { return nil }
        let month = number(4, 2) ?? 1
        let day = number(6, 2) ?? 1
        guard (1...12).contains(month), (1...31).contains(day), [4, 6, 8, 10, 12, 14].contains(digits.count) else { return nil }
        let days = CivilDate.epochDays(year: Int64(year), month: Int64(month), day: Int64(day))
        guard digits.count > 8 else {
            // A day, month or year: an offset may follow (and says nothing about a day); nothing else may.
            let rest = bytes[index...]
            guard rest.isEmpty || (rest.count == 5 && (rest.first == UInt8(ascii: "+") || rest.first == UInt8(ascii: "-"))
                                   && rest.dropFirst().allSatisfy { $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return days * 86_400 + 43_200
        }
        let hour = number(8, 2) ?? 0, minute = number(10, 2) ?? 0, second = number(12, 2) ?? 0
        guard hour <= 24, minute <= 59, second <= 60 else { return nil }
        // A fraction of a second, then an offset.
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
        }
        var offset = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            let rest = bytes[(index + 1)...].map { Int($0) - 0x30 }
            guard rest.count == 4, rest.allSatisfy({ (0...9).contains($0) }) else { return nil }
            offset = sign * ((rest[0] * 10 + rest[1]) * 3600 + (rest[2] * 10 + rest[3]) * 60)
            index = bytes.count
        }
        guard index == bytes.count else { return nil }
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + second - offset)
    }
}
