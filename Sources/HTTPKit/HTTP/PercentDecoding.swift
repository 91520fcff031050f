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
        return decode(bytes: utf8, plusAsSpace: plusAsSpace)
    }

    /// `encoded` decoded and checked as UTF-8, as `decode(_:plusAsSpace:)` does once it finds an escape: for the
    /// parsers that walk a request line's bytes themselves and know where the escapes are.
    public static func decode(bytes encoded: some Collection<UInt8>, plusAsSpace: Bool) -> String? {
        guard let bytes = decodedBytes(encoded, plusAsSpace: plusAsSpace) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The bytes `%XX` escapes (and `+`, when `plusAsSpace`) stand for, not yet checked as UTF-8 (a form
    /// body's caller tells a malformed escape from bytes that are not text); nil when an escape is malformed.
    public static func decodedBytes(_ encoded: some Collection<UInt8>, plusAsSpace: Bool) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        var index = encoded.startIndex
        while index != encoded.endIndex {
            let byte = encoded[index]
            if byte == UInt8(ascii: "%") {
                let high = encoded.index(after: index)
                guard high != encoded.endIndex else { return nil }
                let low = encoded.index(after: high)
                guard low != encoded.endIndex,
                    let h = hexValue(encoded[high]), let l = hexValue(encoded[low])
                else { return nil }
                bytes.append(h << 4 | l)
                index = encoded.index(after: low)
            } else {
                bytes.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index = encoded.index(after: index)
            }
        }
        return bytes
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
