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
        let text = Substring(query)
        let parsed = text.utf8.withContiguousStorageIfAvailable { bytes in
            Result { () throws(HTTPError) in try Self.items(in: bytes) }
        } ?? {
            var copy = String(text)  // not contiguous (bridged): made so, once
            return copy.withUTF8 { bytes in Result { () throws(HTTPError) in try Self.items(in: bytes) } }
        }()
        self.items = try parsed.get()
    }

    /// One pass over the bytes (a query is parsed on most requests): pairs end at `&`, the first `=` splits
    /// a pair, and a part with no `%` or `+` is taken as it is, without a decoding pass.
    private static func items(in bytes: UnsafeBufferPointer<UInt8>) throws(HTTPError) -> [Item] {
        var items: [Item] = []
        var pairStart = 0
        var equals: Int?
        var escaped = (name: false, value: false)
        for index in 0...bytes.count {
            let byte = index == bytes.count ? UInt8(ascii: "&") : bytes[index]
            switch byte {
            case UInt8(ascii: "&"):
                if index != pairStart {
                    let nameEnd = equals ?? index
                    let valueStart = equals.map { $0 + 1 } ?? index
                    if items.isEmpty { items.reserveCapacity(4) }
                    items.append(Item(
                        name: try Self.decode(UnsafeBufferPointer(rebasing: bytes[pairStart..<nameEnd]), escaped: escaped.name),
                        value: try Self.decode(UnsafeBufferPointer(rebasing: bytes[valueStart..<index]), escaped: escaped.value)))
                }
                pairStart = index + 1
                equals = nil
                escaped = (false, false)
            case UInt8(ascii: "=") where equals == nil:
                equals = index
            case UInt8(ascii: "%"), UInt8(ascii: "+"):
                if equals == nil { escaped.name = true } else { escaped.value = true }
            default:
                break
            }
        }
        return items
    }

    /// The bytes of a name or value are a Swift string's, so valid UTF-8 as they are; decoded, they are checked.
    private static func decode(_ part: UnsafeBufferPointer<UInt8>, escaped: Bool) throws(HTTPError) -> String {
        guard escaped else { return String(decoding: part, as: UTF8.self) }
        guard let decoded = PercentDecoding.decode(bytes: part, plusAsSpace: true) else {
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
