/// A tile as a JSON-shaped value, members in the order the module wrote them. Modules build tiles from
/// literals (`["latest": ["bmi": 22.5], "category": "healthy"]`); the wire format writes any of them.
public indirect enum TileValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case number(Double)
    case string(String)
    case array([TileValue])
    case object([Member])

    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: TileValue
    }

    public init(_ number: Double?) { self = number.map { .number($0) } ?? .null }
    public init(_ number: Int64?) { self = number.map { .int($0) } ?? .null }
    public init(_ text: String?) { self = text.map { .string($0) } ?? .null }

    /// The member named `key` of an object (tests and neighbouring code read tiles back).
    public subscript(key: String) -> TileValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    public var number: Double? {
        switch self {
        case .number(let value): return value
        case .int(let value): return Double(value)
        default: return nil
        }
    }

    public var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var array: [TileValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}

extension TileValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: TileValue...) { self = .array(elements) }
    /// Members keep the literal's order.
    public init(dictionaryLiteral elements: (String, TileValue)...) { self = .object(elements.map { Member(key: $0.0, value: $0.1) }) }
}
