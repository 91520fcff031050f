/// Why a record document could not be parsed. Offsets are 0-based byte offsets into the document, so
/// an operator can find the spot with `head -c`/`cut -b`; paths are JSONPath-like (`$.conditions[3]`).
public enum RecordParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not JSON (a syntax error, truncation, trailing content…).
    case notJSON(offset: Int, reason: String)
    /// Valid JSON, but not shaped like a record: the top level is not an object, a section is not an
    /// array, an entry is not an object, or the record has no `_id` to identify it.
    case wrongShape(path: String, expected: String)
    /// Arrays and objects nest deeper than the parser allows (a guard against stack exhaustion).
    case tooDeep(offset: Int, maxDepth: Int)
    /// The document (or one line of a line-delimited file) is larger than the parser accepts.
    case tooLarge(bytes: Int, maxBytes: Int)
    /// The bytes are not valid UTF-8 (RFC 8259 §8.1: JSON exchanged between systems is UTF-8).
    case invalidUTF8(offset: Int)

    public var description: String {
        switch self {
        case let .notJSON(offset, reason):
            return "not JSON at byte \(offset): \(reason)"
        case let .wrongShape(path, expected):
            return "unexpected record shape at \(path): expected \(expected)"
        case let .tooDeep(offset, maxDepth):
            return "JSON nested deeper than \(maxDepth) levels at byte \(offset)"
        case let .tooLarge(bytes, maxBytes):
            return "document of \(bytes) bytes is over the limit of \(maxBytes) bytes"
        case let .invalidUTF8(offset):
            return "invalid UTF-8 at byte \(offset)"
        }
    }
}

extension RecordParseError {
    /// The record-level reading of a JSON-level failure.
    init(_ error: JSONScanError) {
        switch error {
        case let .syntax(offset, reason): self = .notJSON(offset: offset, reason: reason)
        case let .tooDeep(offset, maxDepth): self = .tooDeep(offset: offset, maxDepth: maxDepth)
        case let .tooLarge(bytes, maxBytes): self = .tooLarge(bytes: bytes, maxBytes: maxBytes)
        case let .invalidUTF8(offset): self = .invalidUTF8(offset: offset)
        }
    }

    /// Either kind of failure, as a record-level error (the record walk throws both).
    static func from(_ error: any Error) -> RecordParseError {
        switch error {
        case let error as RecordParseError: return error
        case let error as JSONScanError: return RecordParseError(error)
        default: return .notJSON(offset: 0, reason: String(describing: error))
        }
    }
}
