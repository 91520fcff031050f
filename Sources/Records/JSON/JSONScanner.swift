/// A pull-style JSON reader over UTF-8 bytes (RFC 8259, strict). The record parser walks a document
/// with it and decides per member whether to build a value, skip it, or keep its raw bytes, so the
/// parts of a record that are only stored raw are never turned into Swift values, and every entry's raw
/// JSON is the exact slice of the source.
///
/// The bytes must stay valid while the scanner lives and must already be valid UTF-8
/// (`UTF8Validation`); the scanner only ever looks at ASCII bytes outside strings.
struct JSONScanner {
    /// A string token: the range of its contents (between the quotes) and whether it holds escapes.
    struct StringToken {
        let contents: Range<Int>
        let hasEscapes: Bool
    }

    /// What kind of value starts at the current position.
    enum ValueKind {
        case object, array, string, number, bool, null
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    /// Refuse a `\\u` escape of half a surrogate pair (people's posts); else it reads as U+FFFD (records,
    /// where one odd character must not cost a whole record, and the raw JSON keeps the original).
    var refusesLoneSurrogates = false
    private(set) var offset: Int
    private(set) var depth = 0
    /// The whitespace skipped between tokens so far: none over a stretch means its source is already
    /// compact (`JSONCompaction` has nothing to drop there).
    private(set) var whitespaceBytes = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, offset: Int = 0) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.offset = offset
    }

    // MARK: Positioning

    var isAtEnd: Bool { offset >= bytes.count }

    /// Called before every token: inlined, and a byte that is no whitespace (every token of compact JSON) is
    /// one comparison. Out of line, it was an eighth of a bundle's reading.
    @inline(__always)
    mutating func skipWhitespace() {
        guard offset < bytes.count, bytes[offset] <= 0x20 else { return }
        skipWhitespaceRun()
    }

    private mutating func skipWhitespaceRun() {
        let start = offset
        defer { whitespaceBytes &+= offset - start }
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    /// The kind of the value at the current position (after whitespace), or nil when no value can
    /// start here.
    mutating func peekKind() -> ValueKind? {
        skipWhitespace()
        guard offset < bytes.count else { return nil }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        default: return nil
        }
    }

    /// After the top-level value: only whitespace may follow.
    mutating func expectEnd() throws(JSONScanError) {
        skipWhitespace()
        if offset < bytes.count {
            throw error("unexpected \(describeByte(at: offset)) after the end of the JSON value")
        }
    }

    // MARK: Containers

    mutating func beginObject() throws(JSONScanError) {
        try enterContainer(UInt8(ascii: "{"), "'{'")
    }

    mutating func beginArray() throws(JSONScanError) {
        try enterContainer(UInt8(ascii: "["), "'['")
    }

    /// The next member's key of the object being read, positioned at its value; nil (having consumed
    /// the closing brace) when the object ends. `isFirst` must start true for each object.
    mutating func nextKey(isFirst: inout Bool) throws(JSONScanError) -> StringToken? {
        skipWhitespace()
        guard offset < bytes.count else { throw error("unexpected end of input inside an object") }
        if bytes[offset] == UInt8(ascii: "}"), isFirst {
            offset += 1
            depth -= 1
            return nil
        }
        if !isFirst {
            switch bytes[offset] {
            case UInt8(ascii: "}"):
                offset += 1
                depth -= 1
                return nil
            case UInt8(ascii: ","):
                offset += 1
                skipWhitespace()
            default:
                throw error("expected ',' or '}' in an object, found \(describeByte(at: offset))")
            }
        }
        isFirst = false
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
            throw error("expected a member name (a string), found \(describeByte(at: offset))")
        }
        let key = try readStringToken()
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else {
            throw error("expected ':' after a member name, found \(describeByte(at: offset))")
        }
        offset += 1
        skipWhitespace()
        return key
    }

    /// Whether another element follows in the array being read (positioned at it); false, having
    /// consumed the closing bracket, when the array ends. `isFirst` must start true for each array.
    mutating func nextElement(isFirst: inout Bool) throws(JSONScanError) -> Bool {
        skipWhitespace()
        guard offset < bytes.count else { throw error("unexpected end of input inside an array") }
        if bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            depth -= 1
            return false
        }
        if !isFirst {
            guard bytes[offset] == UInt8(ascii: ",") else {
                throw error("expected ',' or ']' in an array, found \(describeByte(at: offset))")
            }
            offset += 1
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] != UInt8(ascii: "]") else {
                throw error("expected a value after ',' in an array, found \(describeByte(at: offset))")
            }
        }
        isFirst = false
        return true
    }

    private mutating func enterContainer(_ opener: UInt8, _ name: String) throws(JSONScanError) {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == opener else {
            throw error("expected \(name), found \(describeByte(at: offset))")
        }
        guard depth < maxDepth else { throw .tooDeep(offset: offset, maxDepth: maxDepth) }
        depth += 1
        offset += 1
    }

    // MARK: Scalars

    /// Reads a string token at the current position (which must be its opening quote), checking its
    /// escapes and that it holds no raw control characters.
    mutating func readStringToken() throws(JSONScanError) -> StringToken {
        let open = offset
        var i = offset + 1
        var hasEscapes = false
        let count = bytes.count
        let base = bytes.baseAddress
        while true {
            // Eight bytes at a time while none of them ends the string, escapes or is a control character:
            // most of a record's bytes are in strings, and this is most of the time spent reading them. The
            // word that holds one says which byte it is first, so the string's last bytes are not read one by
            // one (a string of a record is a few words long: that tail was half the time of its scan).
            var found = false
            if let base {
                while i + 8 <= count {
                    let mask = JSONScanner.stringEndMask(UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)))
                    if mask != 0 {
                        i += mask.trailingZeroBitCount >> 3
                        found = true
                        break
                    }
                    i += 8
                }
            }
            guard i < count else { throw .syntax(offset: open, reason: "unterminated string") }
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                guard i + 1 < count else { throw .syntax(offset: open, reason: "unterminated string") }
                switch bytes[i + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                     UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    i += 2
                case UInt8(ascii: "u"):
                    guard i + 5 < count, (2...5).allSatisfy({ JSONScanner.hexValue(bytes[i + $0]) != nil }) else {
                        throw .syntax(offset: i, reason: "bad \\u escape in a string")
                    }
                    if refusesLoneSurrogates { try checkSurrogate(at: i) }
                    i += 6
                default:
                    throw .syntax(offset: i, reason: "bad escape '\\\(Character(Unicode.Scalar(bytes[i + 1])))' in a string")
                }
                continue
            }
            if byte < 0x20 {
                throw .syntax(offset: i, reason: "raw control character (0x\(String(byte, radix: 16))) in a string")
            }
            // Only in the file's last seven bytes, read one by one: a word's first flagged byte is one of the three.
            assert(!found, "stringEndMask flagged an ordinary byte")
            i += 1
        }
        offset = i + 1
        return StringToken(contents: (open + 1)..<i, hasEscapes: hasEscapes)
    }

    /// At a `\\u` escape (at `index`): a high surrogate must be followed by a low one; a low one alone is refused.
    private func checkSurrogate(at index: Int) throws(JSONScanError) {
        let scalar = JSONScanner.hex4(bytes, at: index + 2)
        if (0xDC00...0xDFFF).contains(scalar) { throw .syntax(offset: index, reason: "a lone surrogate in a string") }
        guard (0xD800...0xDBFF).contains(scalar) else { return }
        guard index + 11 < bytes.count, bytes[index + 6] == UInt8(ascii: "\\"), bytes[index + 7] == UInt8(ascii: "u"),
              (8...11).allSatisfy({ JSONScanner.hexValue(bytes[index + $0]) != nil }),
              (0xDC00...0xDFFF).contains(JSONScanner.hex4(bytes, at: index + 8)) else {
            throw .syntax(offset: index, reason: "a lone surrogate in a string")
        }
    }

    /// The text of a string token, escapes decoded. An unpaired surrogate escape becomes U+FFFD: the
    /// raw JSON keeps the original, and one odd character must not cost a whole record.
    func string(_ token: StringToken) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[token.contents])
        guard token.hasEscapes else { return String(decoding: slice, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(slice.count)
        var i = 0
        while i < slice.count {
            let byte = slice[i]
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                i += 1
                continue
            }
            let kind = slice[i + 1]
            i += 2
            switch kind {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = JSONScanner.hex4(slice, at: i)
                i += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    if i + 5 < slice.count, slice[i] == UInt8(ascii: "\\"), slice[i + 1] == UInt8(ascii: "u") {
                        let low = JSONScanner.hex4(slice, at: i + 2)
                        if (0xDC00...0xDFFF).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                            i += 6
                        } else {
                            scalar = 0xFFFD
                        }
                    } else {
                        scalar = 0xFFFD
                    }
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    scalar = 0xFFFD
                }
                JSONScanner.appendUTF8(Unicode.Scalar(scalar) ?? "\u{FFFD}", to: &out)
            default: out.append(kind) // \" \\ \/
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether a string token is exactly `literal` (ASCII), without building a `String` for it.
    func token(_ token: StringToken, equals literal: StaticString) -> Bool {
        if token.hasEscapes { return string(token) == literal.description }
        let length = literal.utf8CodeUnitCount
        guard token.contents.count == length else { return false }
        let start = literal.utf8Start
        var i = 0
        let base = token.contents.lowerBound
        while i < length {
            if bytes[base + i] != start[i] { return false }
            i += 1
        }
        return true
    }

    /// Reads a number literal, checking RFC 8259 grammar; returns its range and whether it is an
    /// integer (no fraction, no exponent).
    mutating func readNumberToken() throws(JSONScanError) -> (range: Range<Int>, isInteger: Bool) {
        let start = offset
        var i = offset
        let count = bytes.count
        if i < count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < count, JSONScanner.isDigit(bytes[i]) else {
            throw .syntax(offset: start, reason: "bad number")
        }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            while i < count, JSONScanner.isDigit(bytes[i]) { i += 1 }
        }
        var isInteger = true
        if i < count, bytes[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            guard i < count, JSONScanner.isDigit(bytes[i]) else {
                throw .syntax(offset: start, reason: "bad number: a digit must follow '.'")
            }
            while i < count, JSONScanner.isDigit(bytes[i]) { i += 1 }
        }
        if i < count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            i += 1
            if i < count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < count, JSONScanner.isDigit(bytes[i]) else {
                throw .syntax(offset: start, reason: "bad number: a digit must follow the exponent")
            }
            while i < count, JSONScanner.isDigit(bytes[i]) { i += 1 }
        }
        offset = i
        return (start..<i, isInteger)
    }

    mutating func readNumber() throws(JSONScanError) -> JSONNumber {
        let (range, isInteger) = try readNumberToken()
        return JSONNumber(literal: UnsafeBufferPointer(rebasing: bytes[range]), isInteger: isInteger)
    }

    mutating func readBool() throws(JSONScanError) -> Bool {
        if matchLiteral("true") { return true }
        if matchLiteral("false") { return false }
        throw error("expected a value, found \(describeByte(at: offset))")
    }

    mutating func readNull() throws(JSONScanError) {
        guard matchLiteral("null") else { throw error("expected a value, found \(describeByte(at: offset))") }
    }

    private mutating func matchLiteral(_ literal: StaticString) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard offset + length <= bytes.count else { return false }
        for i in 0..<length where bytes[offset + i] != literal.utf8Start[i] { return false }
        offset += length
        return true
    }

    // MARK: Whole values

    /// Skips one value, checking it as thoroughly as parsing would.
    mutating func skipValue() throws(JSONScanError) {
        switch peekKind() {
        case .object:
            try beginObject()
            var first = true
            while try nextKey(isFirst: &first) != nil { try skipValue() }
        case .array:
            try beginArray()
            var first = true
            while try nextElement(isFirst: &first) { try skipValue() }
        case .string: _ = try readStringToken()
        case .number: _ = try readNumberToken()
        case .bool: _ = try readBool()
        case .null: try readNull()
        case nil: throw missingValue()
        }
    }

    /// Parses one value into a `JSONValue`.
    mutating func parseValue() throws(JSONScanError) -> JSONValue {
        switch peekKind() {
        case .object:
            try beginObject()
            var members: [JSONObject.Member] = []
            var first = true
            while let key = try nextKey(isFirst: &first) {
                let name = string(key)
                members.append(JSONObject.Member(key: name, value: try parseValue()))
            }
            return .object(JSONObject(members: members))
        case .array:
            try beginArray()
            var elements: [JSONValue] = []
            var first = true
            while try nextElement(isFirst: &first) { elements.append(try parseValue()) }
            return .array(elements)
        case .string: return .string(string(try readStringToken()))
        case .number: return .number(try readNumber())
        case .bool: return .bool(try readBool())
        case .null:
            try readNull()
            return .null
        case nil: throw missingValue()
        }
    }

    // MARK: Errors

    private func missingValue() -> JSONScanError {
        error("expected a value, found \(describeByte(at: offset))")
    }

    func error(_ reason: String) -> JSONScanError {
        .syntax(offset: offset, reason: reason)
    }

    func describeByte(at index: Int) -> String {
        guard index < bytes.count else { return "the end of input" }
        let byte = bytes[index]
        if byte >= 0x21, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16))"
    }

    // MARK: Byte classes

    /// The high bit of each of eight bytes (the first in the lowest bits: `word` read little-endian) that may be a
    /// quote, a backslash or below 0x20 (SWAR: a byte that is zero after the XOR, or below the bound, sets its high
    /// bit). Zero when there is none. The lowest bit set is exact: a borrow that flags a byte wrongly comes only
    /// from a flagged byte below it. So `trailingZeroBitCount / 8` is the index of the first such byte.
    @inline(__always)
    static func stringEndMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let hasQuote = (quote &- ones) & ~quote
        let hasBackslash = (backslash &- ones) & ~backslash
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl) & highs
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    private static func appendUTF8(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
        let value = scalar.value
        switch value {
        case 0..<0x80:
            out.append(UInt8(value))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | value >> 6))
            out.append(UInt8(0x80 | value & 0x3F))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | value >> 12))
            out.append(UInt8(0x80 | value >> 6 & 0x3F))
            out.append(UInt8(0x80 | value & 0x3F))
        default:
            out.append(UInt8(0xF0 | value >> 18))
            out.append(UInt8(0x80 | value >> 12 & 0x3F))
            out.append(UInt8(0x80 | value >> 6 & 0x3F))
            out.append(UInt8(0x80 | value & 0x3F))
        }
    }

    /// Four hex digits already checked by `readStringToken`.
    private static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt32 {
        var value: UInt32 = 0
        for k in 0..<4 { value = value << 4 | (hexValue(bytes[index + k]) ?? 0) }
        return value
    }
}
