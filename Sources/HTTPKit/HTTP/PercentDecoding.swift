/// Percent-decoding (RFC 3986 section 2.1) of URL paths, query strings and form bodies.
public enum PercentDecoding {
    /// Decodes `%XX` escapes, and `+` as a space when `plusAsSpace` is set (query strings and
    /// form bodies, as browsers encode them).
    ///
    /// - Returns: the decoded text, or `nil` when an escape is malformed or the result is not
    ///   valid UTF-8. A lenient decoder would let `%zz` or a lone byte through, and two parts of
    ///   the program could then disagree about what a name means.
    public static func decode(_ text: some StringProtocol, plusAsSpace: Bool) -> String? {
        let utf8 = text.utf8
        // Fast path: nothing to decode, and a Swift string is already valid UTF-8.
        let needsWork = utf8.contains { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }
        if !needsWork {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let high = utf8.index(after: index)
                guard high != utf8.endIndex else { return nil }
                let low = utf8.index(after: high)
                guard low != utf8.endIndex,
                    let h = hexValue(utf8[high]), let l = hexValue(utf8[low])
                else { return nil }
                bytes.append(h << 4 | l)
                index = utf8.index(after: low)
            } else {
                bytes.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index = utf8.index(after: index)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
