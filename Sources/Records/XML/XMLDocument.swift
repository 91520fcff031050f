import CXMLShim

/// A parsed XML document (libxml2, through the C shim), with XPath over it. Parsed safely: no network, no
/// entity substitution, no DTD (a document declaring one is refused), libxml2's size limits on, its depth
/// limit raised to `maximumDepth`.
/// A class: it owns the C document and frees it; nodes are valid while it lives, and are used only on the
/// thread that read it. The record readers and the RHEx patient feed (an Atom document) read through it.
public final class XMLDocument {
    private let document: OpaquePointer

    /// The prefixes every reader's XPath uses.
    static let namespaces = [
        ("hl7", "urn:hl7-org:v3"), ("sdtc", "urn:hl7-org:sdtc"), ("xsi", "http://www.w3.org/2001/XMLSchema-instance"),
        ("atom", "http://www.w3.org/2005/Atom"),
    ]

    /// Elements a document may nest (`HXML_MAX_DEPTH`, raised from libxml2's 256); a deeper document is refused
    /// whole, with the reason. 0 when libxml2 cannot be loaded.
    public static var maximumDepth: Int { Int(hxml_max_depth()) }

    /// Nodes matched by one expression beyond this many are not read (a bound on a hostile document).
    static let maximumMatches = 100_000

    public init(_ bytes: [UInt8]) throws(XMLError) {
        var message = [CChar](repeating: 0, count: 512)
        let parsed = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                hxml_parse(chars.baseAddress, Int32(chars.count), &message, Int32(message.count))
            }
        }
        guard let parsed else { throw .notXML(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
        document = parsed
        for (prefix, uri) in Self.namespaces { hxml_register_namespace(document, prefix, uri) }
    }

    deinit { hxml_free(document) }

    public var root: XMLNode { XMLNode(pointer: hxml_root(document), document: self) }

    /// How many nodes `expression` selects (all of them, beyond `maximumMatches` too).
    public func count(_ expression: String, in context: XMLNode? = nil) -> Int {
        var none: hxml_node? = nil
        return max(0, Int(hxml_xpath(document, context?.pointer, expression, &none, 0)))
    }

    /// The nodes `expression` selects, with `context` as the context node (nil: the document).
    public func nodes(_ expression: String, in context: XMLNode? = nil) -> [XMLNode] {
        var found = [hxml_node?](repeating: nil, count: 64)
        var count = Int(hxml_xpath(document, context?.pointer, expression, &found, Int32(found.count)))
        guard count >= 0 else { return [] }
        if count > found.count {
            count = min(count, Self.maximumMatches)
            found = [hxml_node?](repeating: nil, count: count)
            count = min(Int(hxml_xpath(document, context?.pointer, expression, &found, Int32(found.count))), count)
        }
        return found.prefix(count).compactMap { $0.map { XMLNode(pointer: $0, document: self) } }
    }

    public func node(_ expression: String, in context: XMLNode? = nil) -> XMLNode? {
        nodes(expression, in: context).first
    }
}

/// One element or attribute of an `XMLDocument`.
public struct XMLNode {
    let pointer: hxml_node
    /// Keeps the document alive while the node is.
    let document: XMLDocument

    public var name: String { String(cString: hxml_name(pointer)) }

    public func attribute(_ name: String) -> String? {
        guard let value = hxml_attribute(pointer, name) else { return nil }
        defer { hxml_string_free(value) }
        return String(cString: value)
    }

    /// `xsi:type`, the data type of a CDA value.
    var xsiType: String? {
        guard let value = hxml_attribute_ns(pointer, "type", "http://www.w3.org/2001/XMLSchema-instance") else { return nil }
        defer { hxml_string_free(value) }
        return String(cString: value)
    }

    /// The text of the node and its descendants.
    public var text: String {
        guard let value = hxml_text(pointer) else { return "" }
        defer { hxml_string_free(value) }
        return String(cString: value)
    }

    /// The text of a narrative block as lines: paragraphs, list items, table rows and `br` end a line,
    /// table cells are joined with " | ", white space within a line collapsed, empty lines left out. At
    /// most `maxBytes` bytes of text are read; `truncated` says when more was there.
    func blockText(maxBytes: Int) -> (text: String, truncated: Bool) {
        var truncated: Int32 = 0
        guard let value = hxml_block_text(pointer, maxBytes, &truncated) else { return ("", true) }
        defer { hxml_block_text_free(value) }
        var lines: [String] = []
        for line in String(cString: value).split(separator: "\n", omittingEmptySubsequences: true) {
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false)
                .map { $0.split(whereSeparator: { $0 == " " || $0 == "\r" || $0 == "\u{a0}" }).joined(separator: " ") }
            let trimmed = cells.reversed().drop { $0.isEmpty }.reversed()
            let joined = trimmed.joined(separator: " | ")
            if !joined.isEmpty { lines.append(joined) }
        }
        return (lines.joined(separator: "\n"), truncated != 0)
    }

    public func nodes(_ expression: String) -> [XMLNode] { document.nodes(expression, in: self) }
    public func node(_ expression: String) -> XMLNode? { document.node(expression, in: self) }
    /// How many nodes `expression` selects from this node (all of them, beyond `maximumMatches` too).
    public func count(_ expression: String) -> Int { document.count(expression, in: self) }
}

public enum XMLError: Error, Sendable, Equatable, CustomStringConvertible {
    case notXML(String)
    case tooLarge(bytes: Int, maxBytes: Int)

    public var description: String {
        switch self {
        case let .notXML(reason): return reason
        case let .tooLarge(bytes, maxBytes): return "document of \(bytes) bytes is over the limit of \(maxBytes) bytes"
        }
    }
}
