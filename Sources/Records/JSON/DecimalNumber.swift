/// Decimal text to numbers, without going through `String` for the common case. Records are mostly
/// numbers (times, scalars), so this is on the hot path of every entry.
enum DecimalNumber {
    /// Powers of ten that a `Double` holds exactly: the range of Clinger's fast path.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// The value of a JSON number literal whose grammar the scanner has already checked.
    static func double(jsonLiteral bytes: UnsafeBufferPointer<UInt8>) -> Double {
        // A checked literal always converts; the fallback is only reached for exotic inputs.
        convert(bytes) ?? 0
    }

    /// The exact integer of a JSON integer literal (no fraction, no exponent), or nil when it does
    /// not fit in 64 bits.
    static func int64(integerLiteral bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { i = 1 }
        guard i < bytes.count else { return nil }
        // Accumulate negatively so that Int64.min fits.
        var value: Int64 = 0
        while i < bytes.count {
            let digit = Int64(bytes[i] &- UInt8(ascii: "0"))
            guard digit >= 0, digit <= 9 else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.subtractingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = next
            i += 1
        }
        if negative { return value }
        return value == Int64.min ? nil : -value
    }

    /// A number written as text by a source (`"118.0"`, `" 6.3 "`, `"+5"`, `".5"`, `"1e3"`), or nil when
    /// the text is anything else (`"Positive"`, `"1,234"`, `"NaN"`, `"0x1p3"`, `"inf"`, empty). Only
    /// plain decimal notation counts: `Double("0x10")` and `Double("nan")` would accept more than a
    /// clinician means by a number.
    static func double(lenientText text: String) -> Double? {
        var text = text
        return text.withUTF8 { utf8 -> Double? in
            var start = 0
            var end = utf8.count
            while start < end, isSpace(utf8[start]) { start += 1 }
            while end > start, isSpace(utf8[end - 1]) { end -= 1 }
            guard start < end else { return nil }
            let trimmed = UnsafeBufferPointer(rebasing: utf8[start..<end])
            guard isLenientDecimal(trimmed), let value = convert(trimmed) else { return nil }
            return value.isFinite ? value : nil
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// `[+-]?(digits[.digits?] | .digits)([eE][+-]?digits)?`
    private static func isLenientDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = bytes.count
        if i < n, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
        var mantissaDigits = 0
        while i < n, isDigit(bytes[i]) { i += 1; mantissaDigits += 1 }
        if i < n, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < n, isDigit(bytes[i]) { i += 1; mantissaDigits += 1 }
        }
        guard mantissaDigits > 0 else { return false }
        if i < n, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < n, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            var exponentDigits = 0
            while i < n, isDigit(bytes[i]) { i += 1; exponentDigits += 1 }
            guard exponentDigits > 0 else { return false }
        }
        return i == n
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    /// Decimal text (JSON or lenient grammar, already checked) to the correctly rounded `Double`.
    /// Up to 19 significant digits are gathered in an integer; when that integer and the power of ten
    /// are both exact in a `Double`, one multiplication or division is correctly rounded (Clinger 1990).
    /// Anything else goes to the standard library's correctly rounded conversion.
    private static func convert(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        let n = bytes.count
        var i = 0
        var negative = false
        if i < n, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var exponent = 0
        var truncated = false
        while i < n, isDigit(bytes[i]) {
            let digit = UInt64(bytes[i] &- UInt8(ascii: "0"))
            if mantissa == 0 && digit == 0 {
                // Leading zeros carry no significance.
            } else if significantDigits < 19 {
                mantissa = mantissa * 10 + digit
                significantDigits += 1
            } else {
                exponent += 1
                truncated = truncated || digit != 0
            }
            i += 1
        }
        if i < n, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < n, isDigit(bytes[i]) {
                let digit = UInt64(bytes[i] &- UInt8(ascii: "0"))
                if mantissa == 0 && digit == 0 {
                    exponent -= 1
                } else if significantDigits < 19 {
                    mantissa = mantissa * 10 + digit
                    significantDigits += 1
                    exponent -= 1
                } else {
                    truncated = truncated || digit != 0
                }
                i += 1
            }
        }
        if i < n, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var exponentNegative = false
            if i < n, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            var written = 0
            while i < n, isDigit(bytes[i]) {
                // Saturate: beyond this the result is 0 or infinity anyway, and the fallback decides.
                if written < 100_000 { written = written * 10 + Int(bytes[i] &- UInt8(ascii: "0")) }
                i += 1
            }
            exponent += exponentNegative ? -written : written
        }
        if !truncated, mantissa <= 1 << 53, exponent >= -22, exponent <= 22 {
            var value = Double(mantissa)
            if exponent < 0 {
                value /= exactPowersOfTen[-exponent]
            } else {
                value *= exactPowersOfTen[exponent]
            }
            return negative ? -value : value
        }
        if mantissa == 0 { return negative ? -0.0 : 0.0 }
        return Double(String(decoding: bytes, as: UTF8.self))
    }
}
