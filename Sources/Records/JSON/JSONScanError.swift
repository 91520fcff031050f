/// Why bytes are not a JSON document the scanner accepts. Offsets are 0-based byte offsets.
public enum JSONScanError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A syntax error, a truncation, trailing content.
    case syntax(offset: Int, reason: String)
    /// Arrays and objects nest deeper than allowed (a guard against stack exhaustion).
    case tooDeep(offset: Int, maxDepth: Int)
    /// The document is larger than allowed.
    case tooLarge(bytes: Int, maxBytes: Int)
    /// The bytes are not valid UTF-8 (RFC 8259 §8.1: JSON exchanged between systems is UTF-8).
    case invalidUTF8(offset: Int)

    public var description: String {
        switch self {
        case let .syntax(offset, reason): return "not JSON at byte \(offset): \(reason)"
        case let .tooDeep(offset, maxDepth): return "JSON nested deeper than \(maxDepth) levels at byte \(offset)"
        case let .tooLarge(bytes, maxBytes): return "document of \(bytes) bytes is over the limit of \(maxBytes) bytes"
        case let .invalidUTF8(offset): return "invalid UTF-8 at byte \(offset)"
        }
    }
}
