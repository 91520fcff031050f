/// Writes JSON text straight into a byte buffer: no intermediate dictionaries of `Any`, keys in the order
/// the caller writes them, raw JSON fragments (an entry's source JSON) inlined as they are.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = [false]
    /// True right after `key(_:)`: the value that follows takes no comma.
    private var afterKey = false

    public init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    public var string: String { String(decoding: bytes, as: UTF8.self) }

    /// The bytes written so far, handed over and cleared; where the writer is in the document (open objects
    /// and arrays, whether a comma is due) stays: a document sent in parts as it is written.
    public mutating func takeBytes() -> [UInt8] {
        let taken = bytes
        bytes = []
        bytes.reserveCapacity(taken.count)
        return taken
    }

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

    /// A string given as its UTF-8 bytes (kept compactly by the caller): the same JSON as `string(_:)`.
    public mutating func string(utf8: UnsafeBufferPointer<UInt8>) {
        separate()
        Self.appendString(utf8: utf8, to: &bytes)
    }

    public mutating func int(_ value: Int64?) {
        separate()
        guard let value else { bytes.append(contentsOf: Self.null); return }
        Self.appendInteger(value, to: &bytes)
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? Self.true : Self.false)
    }

    /// Integral doubles are written without a fraction (179, not 179.0); non-finite values become null.
    public mutating func number(_ value: Double?) {
        separate()
        guard let value, value.isFinite else { bytes.append(contentsOf: Self.null); return }
        if value == value.rounded(), abs(value) < 9.0e15 {
            Self.appendInteger(Int64(value), to: &bytes)
        } else {
            bytes.append(contentsOf: "\(value)".utf8)
        }
    }

    public mutating func null() { separate(); bytes.append(contentsOf: Self.null) }

    /// Inlines a fragment that is already valid JSON (for example an entry's raw source JSON).
    public mutating func raw(_ json: String) {
        separate()
        var json = json
        json.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Writes an array whose elements are given as JSON already joined by commas (`EntryList`).
    public mutating func array(elements json: [UInt8]) {
        beginArray()
        bytes.append(contentsOf: json)
        endArray()
    }

    /// The same, with fragments written into the elements: each at its offset in `json`, offsets ascending
    /// (how an annotation goes into its entry's stored object, before the closing brace).
    public mutating func array(elements json: [UInt8], inserting fragments: [(offset: Int, bytes: [UInt8])]) {
        beginArray()
        var from = 0
        for fragment in fragments where fragment.offset >= from && fragment.offset <= json.count {
            bytes.append(contentsOf: json[from..<fragment.offset])
            bytes.append(contentsOf: fragment.bytes)
            from = fragment.offset
        }
        bytes.append(contentsOf: json[from...])
        endArray()
    }

    public mutating func raw(_ json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
    }

    private static let null: [UInt8] = Array("null".utf8)
    private static let `true`: [UInt8] = Array("true".utf8)
    private static let `false`: [UInt8] = Array("false".utf8)

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Decimal digits without an intermediate String (this runs for every date of every entry).
    static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        if value == 0 { bytes.append(UInt8(ascii: "0")); return }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0) // 32 bytes of scratch, no allocation
        var count = 0
        withUnsafeMutableBytes(of: &digits) { scratch in
            while magnitude > 0 {
                scratch[31 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(contentsOf: scratch[(32 - count)...])
        }
    }

    /// Needs escaping inside a JSON string: quote, backslash, control characters, DEL, and `<`, `>`, `&`
    /// (so that JSON can never be read as markup by a confused client).
    @inline(__always)
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x22 || byte == 0x5c || byte == 0x7f || byte == 0x3c || byte == 0x3e || byte == 0x26
    }

    static func appendString(_ string: String, to bytes: inout [UInt8]) {
        var string = string
        string.withUTF8 { appendString(utf8: $0, to: &bytes) }
    }

    static func appendString(utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Copy runs of plain bytes in one go; escape the rest one by one.
        var runStart = 0
        for index in 0..<utf8.count where needsEscape(utf8[index]) {
            if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
            appendEscaped(utf8[index], to: &bytes)
            runStart = index + 1
        }
        if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func appendEscaped(_ byte: UInt8, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x0a: bytes.append(UInt8(ascii: "n"))
        case 0x0d: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xf)]])
        }
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
