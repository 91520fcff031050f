/// A JSON value that keeps what a FHIR server must not change in the resources it serves: the order of
/// an object's members and numbers exactly as written (`50.976089032460266`, `1.50`), which a round trip
/// through `Double` would alter. Parsed once at load; each resource's bytes are written once and kept.
enum JSON: Sendable, Equatable {
    struct Member: Sendable, Equatable {
        var key: String
        var value: JSON
    }

    case object([Member])
    case array([JSON])
    case string(String)
    /// The number's text, as it was written (already checked to be a JSON number).
    case number(String)
    case bool(Bool)
    case null

    // MARK: Reading

    subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    var string: String? {
        if case .string(let text) = self { text } else { nil }
    }

    var array: [JSON]? {
        if case .array(let items) = self { items } else { nil }
    }

    /// The `reference` of a Reference (`{"reference": "Patient/1"}`).
    var reference: String? { self["reference"]?.string }

    // MARK: Changing

    /// Sets `key` to `value`: in place when the member exists, else after the member named `after` (or
    /// at the end).
    mutating func set(_ key: String, _ value: JSON, after: String? = nil) {
        guard case .object(var members) = self else { return }
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else if let after, let index = members.firstIndex(where: { $0.key == after }) {
            members.insert(Member(key: key, value: value), at: index + 1)
        } else {
            members.append(Member(key: key, value: value))
        }
        self = .object(members)
    }

    /// Calls `transform` with every `reference` string anywhere in the value; a non-nil answer replaces it.
    mutating func rewriteReferences(_ transform: (String) -> String?) {
        switch self {
        case .object(var members):
            for index in members.indices {
                if members[index].key == "reference", case .string(let text) = members[index].value {
                    if let replaced = transform(text) { members[index].value = .string(replaced) }
                } else {
                    members[index].value.rewriteReferences(transform)
                }
            }
            self = .object(members)
        case .array(var items):
            for index in items.indices { items[index].rewriteReferences(transform) }
            self = .array(items)
        default:
            break
        }
    }

    /// Every `reference` string anywhere in the value.
    var references: [String] {
        var found: [String] = []
        collectReferences(into: &found)
        return found
    }

    private func collectReferences(into found: inout [String]) {
        switch self {
        case .object(let members):
            for member in members {
                if member.key == "reference", case .string(let text) = member.value {
                    found.append(text)
                } else {
                    member.value.collectReferences(into: &found)
                }
            }
        case .array(let items):
            for item in items { item.collectReferences(into: &found) }
        default:
            break
        }
    }

    // MARK: Writing

    var bytes: [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    func write(to out: inout [UInt8]) {
        switch self {
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .string(let text):
            Self.writeString(text, to: &out)
        case .number(let text):
            out.append(contentsOf: text.utf8)
        case .bool(let value):
            out.append(contentsOf: (value ? "true" : "false").utf8)
        case .null:
            out.append(contentsOf: "null".utf8)
        }
    }

    static func writeString(_ text: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// A JSON string literal, quotes included, for the answers the sandbox writes by hand.
    static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        writeString(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Parsing

    struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        var message: String
        var offset: Int
        var description: String { "\(message) at byte \(offset)" }
    }

    /// Parses one JSON document (RFC 8259), nesting at most `maxDepth` deep.
    static func parse(_ bytes: [UInt8], maxDepth: Int = 512) throws(ParseError) -> JSON {
        var parser = Parser(bytes: bytes, maxDepth: maxDepth)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw ParseError(message: "content after the JSON value", offset: parser.index) }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        let maxDepth: Int
        var index = 0

        init(bytes: [UInt8], maxDepth: Int) {
            self.bytes = bytes
            self.maxDepth = maxDepth
        }

        func fail(_ message: String) -> ParseError { ParseError(message: message, offset: index) }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(ParseError) -> JSON {
            guard depth < maxDepth else { throw fail("nested too deeply") }
            guard index < bytes.count else { throw fail("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw fail("unexpected character")
            }
        }

        mutating func literal(_ word: String) throws(ParseError) {
            for byte in word.utf8 {
                guard index < bytes.count, bytes[index] == byte else { throw fail("bad literal") }
                index += 1
            }
        }

        mutating func object(depth: Int) throws(ParseError) -> JSON {
            index += 1
            var members: [Member] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
                let key = try string()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                index += 1
                skipWhitespace()
                members.append(Member(key: key, value: try value(depth: depth + 1)))
                skipWhitespace()
                guard index < bytes.count else { throw fail("unexpected end in an object") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                } else {
                    throw fail("expected ',' or '}'")
                }
            }
        }

        mutating func array(depth: Int) throws(ParseError) -> JSON {
            index += 1
            var items: [JSON] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                skipWhitespace()
                items.append(try value(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw fail("unexpected end in an array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(items)
                } else {
                    throw fail("expected ',' or ']'")
                }
            }
        }

        mutating func number() throws(ParseError) -> String {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("bad number") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else { throw fail("bad number") }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard index < bytes.count, isDigit(bytes[index]) else { throw fail("bad number") }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        mutating func string() throws(ParseError) -> String {
            index += 1
            let start = index
            // Fast path: no escapes.
            while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
                guard bytes[index] >= 0x20 else { throw fail("control character in a string") }
                index += 1
            }
            guard index < bytes.count else { throw fail("unterminated string") }
            var buffer = Array(bytes[start..<index])
            while bytes[index] != UInt8(ascii: "\"") {
                // bytes[index] is a backslash.
                index += 1
                guard index < bytes.count else { throw fail("unterminated string") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escape)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw fail("lone surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("lone surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw fail("lone surrogate")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail("bad escape") }
                    buffer.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    throw fail("bad escape")
                }
                while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
                    guard bytes[index] >= 0x20 else { throw fail("control character in a string") }
                    buffer.append(bytes[index])
                    index += 1
                }
                guard index < bytes.count else { throw fail("unterminated string") }
            }
            index += 1
            guard let text = String(validating: buffer, as: UTF8.self) else { throw fail("a string that is not UTF-8") }
            return text
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw fail("bad \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw fail("bad \\u escape")
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }
    }
}
