import HealthRecord
import Records
/// A small JSON writer for the synthetic records: appends tokens to a byte buffer, placing commas and
/// (when pretty) newlines and indentation itself, so the generator only says what to write. Store's
/// `JSONWriter` serves what the store writes; this one also pretty-prints, to give the parser
/// multi-line documents. Numbers with decimals are written from integers, never via
/// `Double.description`, so the bytes cannot depend on a platform's float formatting.
struct SyntheticJSONWriter {
    private(set) var bytes: [UInt8] = []
    let pretty: Bool
    /// Per open container: whether it has a member yet.
    private var hasMembers: [Bool] = []
    private var afterKey = false

    init(pretty: Bool, capacity: Int = 0) {
        self.pretty = pretty
        bytes.reserveCapacity(capacity)
    }

    /// Hands out what has been written so far and starts an empty buffer (for streaming).
    mutating func take() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }

    mutating func beginObject() { open(UInt8(ascii: "{")) }
    mutating func endObject() { close(UInt8(ascii: "}")) }
    mutating func beginArray() { open(UInt8(ascii: "[")) }
    mutating func endArray() { close(UInt8(ascii: "]")) }

    mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(UInt8(ascii: " ")) }
        afterKey = true
    }

    mutating func string(_ text: String) {
        separate()
        appendQuoted(text)
    }

    mutating func integer(_ value: Int64) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A number with a fixed count of decimals, e.g. `decimal(118, decimals: 1)` writes `118.0`.
    mutating func decimal(_ value: Double, decimals: Int) {
        separate()
        bytes.append(contentsOf: SyntheticJSONWriter.decimalText(value, decimals: decimals).utf8)
    }

    mutating func bool(_ flag: Bool) {
        separate()
        bytes.append(contentsOf: (flag ? "true" : "false").utf8)
    }

    mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    /// Finishes a document: a newline after a pretty one, as editors write files.
    mutating func finishDocument() {
        if pretty { bytes.append(UInt8(ascii: "\n")) }
    }

    /// `value` rounded to `decimals` places, written with exactly that many.
    static func decimalText(_ value: Double, decimals: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int64((value * Double(scale)).rounded())
        let magnitude = scaled.magnitude
        let whole = magnitude / UInt64(scale)
        let sign = scaled < 0 ? "-" : ""
        guard decimals > 0 else { return sign + String(whole) }
        let fraction = String(magnitude % UInt64(scale))
        return sign + String(whole) + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }

    // MARK: Layout

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        hasMembers.append(false)
    }

    private mutating func close(_ bracket: UInt8) {
        let hadMembers = hasMembers.removeLast()
        if pretty, hadMembers { newline() }
        bytes.append(bracket)
    }

    /// Before any value or key: a comma after a previous member, and the line break of pretty output.
    private mutating func separate() {
        if afterKey {
            afterKey = false
            return
        }
        guard !hasMembers.isEmpty else { return }
        if hasMembers[hasMembers.count - 1] {
            bytes.append(UInt8(ascii: ","))
        } else {
            hasMembers[hasMembers.count - 1] = true
        }
        if pretty { newline() }
    }

    private mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * hasMembers.count))
    }

    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): bytes.append(contentsOf: #"\n"#.utf8)
            case 0..<0x20:
                let hex = String(byte, radix: 16)
                bytes.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
