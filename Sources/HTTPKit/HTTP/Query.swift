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
        var items: [Item] = []
        for pair in Substring(query).splitUTF8(on: UInt8(ascii: "&"), omittingEmpty: true) {
            let name: Substring
            let value: Substring
            if let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) {
                name = pair[..<equals]
                value = pair[pair.utf8.index(after: equals)...]
            } else {
                name = pair
                value = ""
            }
            guard let decodedName = PercentDecoding.decode(name, plusAsSpace: true),
                let decodedValue = PercentDecoding.decode(value, plusAsSpace: true)
            else {
                throw HTTPError(.badRequest, code: "bad_query", message: "The query string is not valid percent-encoded UTF-8.")
            }
            items.append(Item(name: decodedName, value: decodedValue))
        }
        self.items = items
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
