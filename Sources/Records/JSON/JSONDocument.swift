/// The checks every JSON document gets before any of it is read: size, byte-order mark, UTF-8.
enum JSONDocument {
    /// The part of `bytes` to parse: the whole document less a leading UTF-8 byte-order mark, which
    /// RFC 8259 lets a parser ignore and which Windows tools like to write.
    static func checkedBody(_ bytes: UnsafeBufferPointer<UInt8>, limits: ParseLimits) throws(RecordParseError) -> Int {
        guard bytes.count <= limits.maxDocumentBytes else {
            throw .tooLarge(bytes: bytes.count, maxBytes: limits.maxDocumentBytes)
        }
        if let bad = UTF8Validation.firstInvalidOffset(in: bytes) {
            throw .invalidUTF8(offset: bad)
        }
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { return 3 }
        return 0
    }

    /// Parses a whole document into a `JSONValue` (anything JSON allows at the top level).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, limits: ParseLimits = .standard) throws(RecordParseError) -> JSONValue {
        let start = try checkedBody(bytes, limits: limits)
        var scanner = JSONScanner(bytes: bytes, maxDepth: limits.maxDepth, offset: start)
        scanner.skipWhitespace()
        guard !scanner.isAtEnd else { throw scanner.error("empty document") }
        let value = try scanner.parseValue()
        try scanner.expectEnd()
        return value
    }

    static func parse(_ bytes: [UInt8], limits: ParseLimits = .standard) throws(RecordParseError) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(RecordParseError) -> JSONValue in try parse(buffer, limits: limits) }
        }
        return try result.get()
    }
}
