/// Text from a record, made safe for the XML (XHTML narratives, C-CDA) it is written into: markup
/// escaped, and the characters XML 1.0 cannot hold at all (C0 controls but tab, line feed and carriage
/// return; U+FFFE, U+FFFF) replaced by U+FFFD, so that a note's stray control byte shows as a mark, not as
/// a broken document.
enum MarkupText {
    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: return true
        case 0..<0x20, 0xFFFE, 0xFFFF: return false
        default: return true
        }
    }

    /// Whether a UTF-8 byte may start something `clean` changes: a C0 control, or U+FFFE/U+FFFF (EF BF BE/BF).
    @inline(__always) private static func suspect(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0xEF }

    /// The text with what XML cannot hold replaced; trimmed; nil when nothing is left.
    static func clean(_ text: String?) -> String? {
        guard let text else { return nil }
        // Most text needs nothing: one pass over its bytes says so (a 10,000-entry record has 100,000 strings).
        let utf8 = text.utf8
        if let first = utf8.first, let last = utf8.last, first > 0x20, last > 0x20, !utf8.contains(where: suspect) { return text }
        if utf8.isEmpty { return nil }
        var out = String.UnicodeScalarView()
        var changed = false
        for scalar in text.unicodeScalars {
            if isAllowed(scalar) { out.append(scalar) } else { out.append("\u{FFFD}"); changed = true }
        }
        let cleaned = changed ? String(out) : text
        let trimmed = cleaned.trimmedWhitespace
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Appends `text` escaped for XML content and attribute values (`&`, `<`, `>`, `"`, `'`).
    static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        // Byte by byte while the text is plain: markup characters are ASCII; only a suspect byte needs scalars.
        let plain: Bool = text.withUTF8 { bytes in
            guard !bytes.contains(where: suspect) else { return false }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
                case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
                case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
                case UInt8(ascii: "\""): out.append(contentsOf: "&quot;".utf8)
                case UInt8(ascii: "'"): out.append(contentsOf: "&apos;".utf8)
                default: out.append(byte)
                }
            }
            return true
        }
        if plain { return }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out.append(contentsOf: "&amp;".utf8)
            case "<": out.append(contentsOf: "&lt;".utf8)
            case ">": out.append(contentsOf: "&gt;".utf8)
            case "\"": out.append(contentsOf: "&quot;".utf8)
            case "'": out.append(contentsOf: "&apos;".utf8)
            default:
                if isAllowed(scalar) { out.append(contentsOf: String(scalar).utf8) } else { out.append(contentsOf: "\u{FFFD}".utf8) }
            }
        }
    }

    static func escaped(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        append(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

import HealthRecord

/// Times as the documents write them, from epoch seconds, in UTC.
enum SharedTime {
    private static func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }

    private static func parts(_ seconds: Int64) -> (CivilDate, Int64, Int64, Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        return (CivilDate(epochDays: days), rest / 3600, rest % 3600 / 60, rest % 60)
    }

    /// FHIR `dateTime`/`instant`: `2012-04-15T10:30:00Z` (written byte by byte: a record has tens of thousands).
    static func fhir(_ seconds: Int64) -> String {
        let (day, hour, minute, second) = parts(seconds)
        var out: [UInt8] = []
        out.reserveCapacity(20)
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(min(max(day.year, 1), 9999), 4)
        out.append(UInt8(ascii: "-")); digits(day.month, 2)
        out.append(UInt8(ascii: "-")); digits(day.day, 2)
        out.append(UInt8(ascii: "T")); digits(hour, 2)
        out.append(UInt8(ascii: ":")); digits(minute, 2)
        out.append(UInt8(ascii: ":")); digits(second, 2)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// FHIR `date`: `2012-04-15`.
    static func fhirDate(_ seconds: Int64) -> String {
        let day = parts(seconds).0
        return "\(year(day.year))-\(two(day.month))-\(two(day.day))"
    }

    /// HL7 v3 `TS` to the second, in UTC: `20120415103000+0000`.
    static func hl7(_ seconds: Int64) -> String {
        let (day, hour, minute, second) = parts(seconds)
        return "\(year(day.year))\(two(day.month))\(two(day.day))\(two(hour))\(two(minute))\(two(second))+0000"
    }

    /// HL7 v3 `TS` to the day: `20120415`.
    static func hl7Date(_ seconds: Int64) -> String {
        let day = parts(seconds).0
        return "\(year(day.year))\(two(day.month))\(two(day.day))"
    }

    /// What a person reads in a narrative: `2012-04-15`, with the time when it is not noon UTC (the readers'
    /// "a day, no time" mark) or midnight.
    static func readable(_ seconds: Int64) -> String {
        let (day, hour, minute, _) = parts(seconds)
        let date = "\(year(day.year))-\(two(day.month))-\(two(day.day))"
        if (hour == 12 || hour == 0) && minute == 0 && seconds % 60 == 0 { return date }
        return date + " \(two(hour)):\(two(minute)) UTC"
    }

    /// Four digits (years 1–9999 are all the readers take).
    private static func year(_ year: Int64) -> String {
        let clamped = min(max(year, 1), 9999)
        return String(repeating: "0", count: 4 - String(clamped).count) + String(clamped)
    }
}
