/// Writes JSON text straight into a byte buffer: no intermediate dictionaries of `Any`, keys in the order
/// the caller writes them, raw JSON fragments (an entry's source JSON) inlined as they are.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = [false]
    /// True right after `key(_:)`: the value that follows takes no comma.
    private var afterKey = false

    public init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    public var string: String { String(decoding: bytes, as: UTF8.self) }

    private mutating func separate() {
        if afterKey { afterKey = false; return }
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    public mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); needsComma.append(false) }
    public mutating func endObject() { needsComma.removeLast(); bytes.append(UInt8(ascii: "}")) }
    public mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); needsComma.append(false) }
    public mutating func endArray() { needsComma.removeLast(); bytes.append(UInt8(ascii: "]")) }

    /// Writes `"key":`; the next value call writes the value without a comma.
    public mutating func key(_ key: String) {
        separate()
        Self.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    public mutating func string(_ value: String?) {
        separate()
        guard let value else { bytes.append(contentsOf: Self.null); return }
        Self.appendString(value, to: &bytes)
    }

    public mutating func int(_ value: Int64?) {
        separate()
        guard let value else { bytes.append(contentsOf: Self.null); return }
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
    }

    /// Integral doubles are written without a fraction (179, not 179.0); non-finite values become null.
    public mutating func number(_ value: Double?) {
        separate()
        guard let value, value.isFinite else { bytes.append(contentsOf: Self.null); return }
        if value == value.rounded(), abs(value) < 9.0e15 {
            bytes.append(contentsOf: String(Int64(value)).utf8)
        } else {
            bytes.append(contentsOf: "\(value)".utf8)
        }
    }

    public mutating func null() { separate(); bytes.append(contentsOf: Self.null) }

    /// Inlines a fragment that is already valid JSON (for example an entry's raw source JSON).
    public mutating func raw(_ json: String) {
        separate()
        bytes.append(contentsOf: json.utf8)
    }

    public mutating func raw(_ json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
    }

    private static let null: [UInt8] = Array("null".utf8)

    static func appendString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        let hex = Array("0123456789abcdef".utf8)
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case 0x0a: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
            case 0x0d: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
            case 0x00..<0x20, 0x7f:
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xf)])
            // `<`, `>` and `&` escaped so JSON can never be read as markup by a confused client.
            case UInt8(ascii: "<"): bytes.append(contentsOf: Array("\\u003c".utf8))
            case UInt8(ascii: ">"): bytes.append(contentsOf: Array("\\u003e".utf8))
            case UInt8(ascii: "&"): bytes.append(contentsOf: Array("\\u0026".utf8))
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension JSONWriter {
    /// Canonical JSON for a code map: systems sorted, codes in source order.
    public static func codes(_ codes: [String: [String]]) -> String {
        var writer = JSONWriter(capacity: 64)
        writer.beginObject()
        for system in codes.keys.sorted() {
            writer.key(system)
            writer.beginArray()
            for code in codes[system] ?? [] { writer.string(code) }
            writer.endArray()
        }
        writer.endObject()
        return writer.string
    }
}
