/// A parsed JSON value. Objects keep their members in source order (duplicates included) and numbers
/// keep their literal text, because record normalisation needs both: codes such as ICD-9 `401.0` must
/// stay `"401.0"` when a source writes them as numbers, and nothing the source said may be reordered.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    var stringValue: String? {
        if case let .string(text) = self { return text }
        return nil
    }

    var objectValue: JSONObject? {
        if case let .object(object) = self { return object }
        return nil
    }

    var arrayValue: [JSONValue]? {
        if case let .array(elements) = self { return elements }
        return nil
    }

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// A JSON number: its literal text exactly as written, its value as a `Double`, and, when the literal
/// is an integer that fits, its exact `Int64` (epoch seconds must not pass through a `Double`).
public struct JSONNumber: Sendable, Hashable {
    public let literal: String
    public let double: Double
    public let int64: Int64?

    /// The number whose literal (checked JSON) is `literal`.
    init(literal: UnsafeBufferPointer<UInt8>, isInteger: Bool) {
        let int64 = isInteger ? DecimalNumber.int64(integerLiteral: literal) : nil
        self.literal = String(decoding: literal, as: UTF8.self)
        self.double = int64.map(Double.init) ?? DecimalNumber.double(jsonLiteral: literal)
        self.int64 = int64
    }
}

/// A JSON object as an ordered list of members.
public struct JSONObject: Sendable, Hashable {
    public struct Member: Sendable, Hashable {
        public let key: String
        public let value: JSONValue
    }

    public var members: [Member]

    /// The value of the last member named `key`, as most JSON readers resolve duplicate keys.
    public subscript(key: String) -> JSONValue? {
        members.last(where: { $0.key == key })?.value
    }
}
