/// The checks every JSON document gets before any of it is read: size, byte-order mark, UTF-8.
public enum JSONDocument {
    /// The part of `bytes` to parse: the whole document less a leading UTF-8 byte-order mark, which
    /// RFC 8259 lets a parser ignore and which Windows tools like to write.
    static func checkedBody(_ bytes: UnsafeBufferPointer<UInt8>, maxBytes: Int) throws(JSONScanError) -> Int {
        guard bytes.count <= maxBytes else {
            throw .tooLarge(bytes: bytes.count, maxBytes: maxBytes)
        }
        if let bad = UTF8Validation.firstInvalidOffset(in: bytes) {
            throw .invalidUTF8(offset: bad)
        }
        return byteOrderMarkLength(bytes)
    }

    /// 3 when the bytes open with a UTF-8 byte-order mark, else 0.
    static func byteOrderMarkLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    }

    /// Parses a whole document into a `JSONValue` (anything JSON allows at the top level).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, limits: ParseLimits = .standard,
                      refusingLoneSurrogates: Bool = false) throws(JSONScanError) -> JSONValue {
        let start = try checkedBody(bytes, maxBytes: limits.maxDocumentBytes)
        var scanner = JSONScanner(bytes: bytes, maxDepth: limits.maxDepth, offset: start)
        scanner.refusesLoneSurrogates = refusingLoneSurrogates
        scanner.skipWhitespace()
        guard !scanner.isAtEnd else { throw scanner.error("empty document") }
        let value = try scanner.parseValue()
        try scanner.expectEnd()
        return value
    }

    static func parse(_ bytes: [UInt8], limits: ParseLimits = .standard,
                      refusingLoneSurrogates: Bool = false) throws(JSONScanError) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONScanError) -> JSONValue in
                try parse(buffer, limits: limits, refusingLoneSurrogates: refusingLoneSurrogates)
            }
        }
        return try result.get()
    }

    /// Parses a whole document of at most `maxBytes`, nested at most `maxDepth` deep, typed by a person
    /// (a posted form): half a surrogate pair is refused rather than read as U+FFFD.
    public static func parse(_ bytes: [UInt8], maxBytes: Int, maxDepth: Int) throws(JSONScanError) -> JSONValue {
        var limits = ParseLimits.standard
        limits.maxDocumentBytes = maxBytes
        limits.maxDepth = maxDepth
        return try parse(bytes, limits: limits, refusingLoneSurrogates: true)
    }
}
