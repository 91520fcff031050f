/// `application/json` posts: one flat object whose values are strings, numbers or booleans (or an array
/// of those, the JSON twin of a repeated form field). Nesting, null, duplicate names and trailing bytes are
/// refused: a post is a handful of fields, not a document.
public enum FlatJSONBody {
    public static func parse(_ body: [UInt8], limits: PostLimits = .default) throws(PostBodyError) -> PostFields {
        guard body.count <= limits.maximumBodyBytes else { throw .tooLarge("over \(limits.maximumBodyBytes) bytes") }
        guard String(validating: body, as: UTF8.self) != nil else { throw .notUTF8 }
        var parser = Parser(bytes: body, limits: limits)
        let fields = try parser.object()
        parser.skipWhitespace()
        guard parser.atEnd else { throw .badEncoding("unexpected bytes after the object at offset \(parser.offset)") }
        guard !fields.fields.isEmpty else { throw .empty }
        return fields
    }

    struct Parser {
        let bytes: [UInt8]
        let limits: PostLimits
        var offset = 0

        init(bytes: [UInt8], limits: PostLimits) {
            self.bytes = bytes
            self.limits = limits
        }

        var atEnd: Bool { offset >= bytes.count }

        mutating func skipWhitespace() {
            while offset < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[offset]) { offset += 1 }
        }

        mutating func expect(_ byte: UInt8, _ what: String) throws(PostBodyError) {
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == byte else { throw .badEncoding("expected \(what) at offset \(offset)") }
            offset += 1
        }

        mutating func peek() -> UInt8? {
            skipWhitespace()
            return offset < bytes.count ? bytes[offset] : nil
        }

        mutating func object() throws(PostBodyError) -> PostFields {
            guard peek() == UInt8(ascii: "{") else { throw .notFlat("the body is not a JSON object") }
            offset += 1
            var fields = PostFields()
            var names = Set<String>()
            if peek() == UInt8(ascii: "}") { offset += 1; return fields }
            while true {
                guard peek() == UInt8(ascii: "\"") else { throw .badEncoding("expected a field name at offset \(offset)") }
                let name = try string()
                guard !name.isEmpty else { throw .badEncoding("a field has no name") }
                guard name.utf8.count <= limits.maximumNameBytes else { throw .tooLarge("a field name is over \(limits.maximumNameBytes) bytes") }
                guard names.insert(name).inserted else { throw .badEncoding("the field \(name) appears twice") }
                guard names.count <= limits.maximumFields else { throw .tooLarge("more than \(limits.maximumFields) fields") }
                try expect(UInt8(ascii: ":"), "':'")
                fields.fields.append((name, try value(name: name, allowArray: true)))
                guard let next = peek() else { throw .badEncoding("the object is not closed") }
                offset += 1
                if next == UInt8(ascii: "}") { return fields }
                guard next == UInt8(ascii: ",") else { throw .badEncoding("expected ',' or '}' at offset \(offset - 1)") }
            }
        }

        mutating func value(name: String, allowArray: Bool) throws(PostBodyError) -> PostFields.Value {
            guard let first = peek() else { throw .badEncoding("a value is missing at the end") }
            switch first {
            case UInt8(ascii: "\""):
                let s = try string()
                guard s.utf8.count <= limits.maximumValueBytes else { throw .tooLarge("the value of \(name) is over \(limits.maximumValueBytes) bytes") }
                return .string(s)
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            case UInt8(ascii: "n"): throw .notFlat("\(name) is null")
            case UInt8(ascii: "{"): throw .notFlat("\(name) is an object")
            case UInt8(ascii: "["):
                guard allowArray else { throw .notFlat("\(name) holds a nested array") }
                offset += 1
                var items: [String] = []
                if peek() == UInt8(ascii: "]") { offset += 1; return .list(items) }
                while true {
                    let item = try value(name: name, allowArray: false)
                    items.append(item.texts[0])
                    guard items.count <= limits.maximumValuesPerField else {
                        throw .tooLarge("more than \(limits.maximumValuesPerField) values for \(name)")
                    }
                    guard let next = peek() else { throw .badEncoding("an array is not closed") }
                    offset += 1
                    if next == UInt8(ascii: "]") { return .list(items) }
                    guard next == UInt8(ascii: ",") else { throw .badEncoding("expected ',' or ']' at offset \(offset - 1)") }
                }
            default: throw .badEncoding("unexpected character at offset \(offset)")
            }
        }

        mutating func literal(_ word: String) throws(PostBodyError) {
            let w = Array(word.utf8)
            guard offset + w.count <= bytes.count, Array(bytes[offset..<offset + w.count]) == w else {
                throw .badEncoding("unexpected character at offset \(offset)")
            }
            offset += w.count
        }

        /// JSON number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
        mutating func number() throws(PostBodyError) -> String {
            let start = offset
            func digits() -> Int {
                let s = offset
                while offset < bytes.count, bytes[offset] >= 48, bytes[offset] <= 57 { offset += 1 }
                return offset - s
            }
            if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard offset < bytes.count else { throw .badEncoding("a number is cut short") }
            if bytes[offset] == UInt8(ascii: "0") { offset += 1 } else if digits() == 0 { throw .badEncoding("bad number at offset \(start)") }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
                offset += 1
                guard digits() > 0 else { throw .badEncoding("bad number at offset \(start)") }
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
                offset += 1
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
                guard digits() > 0 else { throw .badEncoding("bad number at offset \(start)") }
            }
            guard offset - start <= 64 else { throw .tooLarge("a number is over 64 characters") }
            return String(decoding: bytes[start..<offset], as: UTF8.self)
        }

        mutating func string() throws(PostBodyError) -> String {
            offset += 1 // the opening quote
            var out: [UInt8] = []
            while true {
                guard offset < bytes.count else { throw .badEncoding("a string is not closed") }
                let byte = bytes[offset]
                offset += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard offset < bytes.count else { throw .badEncoding("a string is not closed") }
                    let escape = bytes[offset]
                    offset += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0c)
                    case UInt8(ascii: "n"): out.append(0x0a)
                    case UInt8(ascii: "r"): out.append(0x0d)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800...0xDBFF).contains(scalar) {
                            guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else {
                                throw .badEncoding("a lone surrogate in a string")
                            }
                            offset += 2
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw .badEncoding("a lone surrogate in a string") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(scalar) {
                            throw .badEncoding("a lone surrogate in a string")
                        }
                        guard scalar != 0, let unicode = Unicode.Scalar(scalar) else { throw .badEncoding("a string holds a NUL character") }
                        out.append(contentsOf: Array(String(Character(unicode)).utf8))
                    default: throw .badEncoding("a bad escape in a string at offset \(offset - 1)")
                    }
                case 0x00..<0x20:
                    throw .badEncoding("a control character in a string at offset \(offset - 1)")
                default:
                    out.append(byte)
                }
            }
        }

        mutating func hex4() throws(PostBodyError) -> UInt32 {
            guard offset + 4 <= bytes.count else { throw .badEncoding("a \\u escape is cut short") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = FormBody.hexValue(bytes[offset]) else { throw .badEncoding("a bad \\u escape") }
                value = value << 4 | UInt32(digit)
                offset += 1
            }
            return value
        }
    }
}
