#if canImport(Glibc)
import Glibc
#endif

/// Texts that repeat from row to row (a vital sign's description and units: a handful in a whole record),
/// each made a `String` once: a page of a long record reads hundreds of thousands of rows, and a `String`
/// a row of more than 15 bytes is an allocation a row. Remembers up to `limit` texts; others are made anew.
struct RepeatedStrings: Sendable {
    static let limit = 64
    private var known: [(bytes: [UInt8], string: String)] = []
    /// The index of the text found last: rows of one kind come in runs.
    private var last = 0

    mutating func string(_ text: UnsafeBufferPointer<UInt8>) -> String {
        if last < known.count, sameBytes(known[last].bytes, text) { return known[last].string }
        for index in known.indices where sameBytes(known[index].bytes, text) {
            last = index
            return known[index].string
        }
        let string = String(decoding: text, as: UTF8.self)
        if known.count < Self.limit {
            known.append((Array(text), string))
            last = known.count - 1
        }
        return string
    }
}

/// Whether `bytes` and `text` hold the same bytes (a row's text against a known one: memcmp, not an iterator).
@inline(__always)
func sameBytes(_ bytes: [UInt8], _ text: UnsafeBufferPointer<UInt8>) -> Bool {
    guard bytes.count == text.count else { return false }
    guard let other = text.baseAddress else { return true }
    return bytes.withUnsafeBufferPointer { memcmp($0.baseAddress!, other, text.count) == 0 }
}
