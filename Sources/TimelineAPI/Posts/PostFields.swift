import HealthRecord
import Store

/// The fields of a timeline post, in the order they were sent: a flat map from name to a scalar or, for a
/// repeated form field, every value as an array.
public struct PostFields: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case string(String)
        /// The number exactly as it was written (so 7 stays 7 and 7.5 stays 7.5).
        case number(String)
        case bool(Bool)
        case list([String])

        /// The textual form, for the `levels` arrays whose values are strings.
        var texts: [String] {
            switch self {
            case .string(let s), .number(let s): return [s]
            case .bool(let b): return [b ? "true" : "false"]
            case .list(let items): return items
            }
        }
    }

    public var fields: [(name: String, value: Value)]

    public init(fields: [(name: String, value: Value)] = []) { self.fields = fields }

    public static func == (a: PostFields, b: PostFields) -> Bool {
        a.fields.count == b.fields.count && zip(a.fields, b.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    public subscript(name: String) -> Value? { fields.first { $0.name == name }?.value }

    /// The stored form: a flat JSON object in field order.
    public var json: String {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        for (name, value) in fields {
            writer.key(name)
            switch value {
            case .string(let s): writer.string(s)
            case .number(let n): writer.raw(n)
            case .bool(let b): writer.bool(b)
            case .list(let items):
                writer.beginArray()
                for item in items { writer.string(item) }
                writer.endArray()
            }
        }
        writer.endObject()
        return writer.string
    }
}

/// The limits on what one post may hold. Each is checked, and a post over any of them is refused whole.
public struct PostLimits: Sendable {
    /// The whole request body.
    public var maximumBodyBytes = 16 * 1024
    public var maximumFields = 64
    public var maximumNameBytes = 128
    public var maximumValueBytes = 4 * 1024
    /// Values of one repeated field (or items of one JSON array).
    public var maximumValuesPerField = 64

    public init() {}
    public static let `default` = PostLimits()
}

/// Why a post body was refused. Each maps to a status and a one-line message.
public enum PostBodyError: Error, Sendable, Equatable, CustomStringConvertible {
    case notUTF8
    case badEncoding(String)
    case notFlat(String)
    case tooLarge(String)
    case unsupportedMediaType(String?)
    case empty

    public var description: String {
        switch self {
        case .notUTF8: return "the body is not UTF-8 text"
        case .badEncoding(let detail): return "the body is malformed: \(detail)"
        case .notFlat(let detail): return "the body must be a flat object of strings, numbers and booleans: \(detail)"
        case .tooLarge(let detail): return "the body is too large: \(detail)"
        case .unsupportedMediaType(let type):
            return "unsupported content type \(type ?? "(none)"): send application/x-www-form-urlencoded or application/json"
        case .empty: return "the body holds no fields"
        }
    }
}
