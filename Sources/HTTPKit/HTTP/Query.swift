/// The decoded items of a URL query string (`?a=1&b=two&a=3`), in order, repeated names kept.
///
/// `+` decodes to a space, as browsers encode form fields in a query; a literal plus sign
/// arrives as `%2B`.
public struct Query: Sendable, Hashable, Sequence {
    public struct Item: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var items: [Item]

    public init(_ items: [Item] = []) {
        self.items = items
    }

    /// Parses `name=value` pairs separated by `&`. A pair without `=` has an empty value; empty
    /// pairs (`a=1&&b=2`) are skipped.
    ///
    /// - Throws: `HTTPError` (`400 bad_query`) when an escape is malformed or a name or value is
    ///   not UTF-8.
    public init(parsing query: some StringProtocol) throws(HTTPError) {
        // One pass over the bytes (a query is parsed on most requests): pairs end at `&`, the first `=`
        // splits a pair, and a part with no `%` or `+` is taken as it is, without a decoding pass.
        let text = Substring(query)
        let utf8 = text.utf8
        var items: [Item] = []
        var pairStart = utf8.startIndex
        var equals: Substring.Index?
        var escaped = (name: false, value: false)
        var index = utf8.startIndex
        while true {
            let byte = index == utf8.endIndex ? UInt8(ascii: "&") : utf8[index]
            switch byte {
            case UInt8(ascii: "&"):
                if index != pairStart {
                    let nameEnd = equals ?? index
                    let valueStart = equals.map { utf8.index(after: $0) } ?? index
                    items.append(Item(
                        name: try Self.decode(text[pairStart..<nameEnd], escaped: escaped.name),
                        value: try Self.decode(text[valueStart..<index], escaped: escaped.value)))
                }
                guard index != utf8.endIndex else {
                    self.items = items
                    return
                }
                pairStart = utf8.index(after: index)
                equals = nil
                escaped = (false, false)
            case UInt8(ascii: "=") where equals == nil:
                equals = index
            case UInt8(ascii: "%"), UInt8(ascii: "+"):
                if equals == nil { escaped.name = true } else { escaped.value = true }
            default:
                break
            }
            index = utf8.index(after: index)
        }
    }

    private static func decode(_ part: Substring, escaped: Bool) throws(HTTPError) -> String {
        guard escaped else { return String(part) }
        guard let decoded = PercentDecoding.decode(part, plusAsSpace: true) else {
            throw HTTPError(.badRequest, code: "bad_query", message: "The query string is not valid percent-encoded UTF-8.")
        }
        return decoded
    }

    /// The first value for `name`, or `nil`.
    public subscript(name: String) -> String? {
        self.items.first { $0.name == name }?.value
    }

    /// Every value for `name`, in the order they were sent.
    public func values(for name: String) -> [String] {
        self.items.compactMap { $0.name == name ? $0.value : nil }
    }

    public var isEmpty: Bool { self.items.isEmpty }

    public func makeIterator() -> IndexingIterator<[Item]> {
        self.items.makeIterator()
    }
}
