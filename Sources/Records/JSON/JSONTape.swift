/// One JSON value parsed into a flat list of nodes over its bytes, instead of a tree of Swift values
/// (`JSONValue`): one allocation for the whole value, and a string made only when it is read.
///
/// The FHIR mapping reads each resource through one (`FHIRElement`). It reads a few members of a resource and
/// steps over the rest; the tree it built for each resource, every member's key and every string made and then
/// freed, was half of the mapping's work (`bench/perf/mapping-instructions.py`).
///
/// An object's node is followed by its members, each a key node and then its value's nodes; an array's node by
/// its elements' nodes. Every node knows where its value's nodes end (`next`), so a member not wanted is stepped
/// over whole. Offsets are from the value's first byte: a value is at most `maxBytes` long.
final class JSONTape: Sendable {
    enum Kind: UInt8, Sendable {
        case object, array, string, number, bool, null
    }

    struct Node: Sendable {
        let kind: Kind
        /// A string's: it holds escapes. A number's: it is an integer. A bool's: its value.
        let flag: Bool
        /// Where the value lies: a string's contents (between its quotes), a number's literal, a container
        /// from its bracket to the one that closes it.
        let start: UInt32
        var end: UInt32
        /// The index of the first node after this value's.
        var next: UInt32
    }

    /// The longest value a tape holds (its offsets are 32 bits).
    static let maxBytes = Int(UInt32.max)

    /// The bytes the value lies in (shared with the file read, not copied), and where in them it starts.
    private let source: [UInt8]
    private let base: Int
    let nodes: [Node]

    /// `{}`.
    static let emptyObject = JSONTape(source: Array("{}".utf8), base: 0, nodes: [Node(kind: .object, flag: false, start: 0, end: 2, next: 1)])

    private init(source: [UInt8], base: Int, nodes: [Node]) {
        self.source = source
        self.base = base
        self.nodes = nodes
    }

    /// The value at `range` of `source`, checked as `JSONScanner` checks it.
    static func parse(_ source: [UInt8], range: Range<Int>, maxDepth: Int) throws(JSONScanError) -> JSONTape {
        guard range.count <= maxBytes else { throw .tooLarge(bytes: range.count, maxBytes: maxBytes) }
        var nodes: [Node] = []
        // About a node for every dozen bytes of a FHIR resource: one allocation for most.
        nodes.reserveCapacity(range.count / 12 + 4)
        let parsed = source.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONScanError) in
                var scanner = JSONScanner(bytes: UnsafeBufferPointer(rebasing: buffer[range]), maxDepth: maxDepth)
                try append(&scanner, to: &nodes)
                try scanner.expectEnd()
            }
        }
        try parsed.get()
        return JSONTape(source: source, base: range.lowerBound, nodes: nodes)
    }

    private static func append(_ scanner: inout JSONScanner, to nodes: inout [Node]) throws(JSONScanError) {
        guard let kind = scanner.peekKind() else {
            // Says what `parseValue` says of a missing value.
            try scanner.skipValue()
            return
        }
        let start = UInt32(scanner.offset)
        switch kind {
        case .object:
            let at = nodes.count
            nodes.append(Node(kind: .object, flag: false, start: start, end: start, next: 0))
            try scanner.beginObject()
            var first = true
            while let key = try scanner.nextKey(isFirst: &first) {
                nodes.append(Node(kind: .string, flag: key.hasEscapes, start: UInt32(key.contents.lowerBound),
                                  end: UInt32(key.contents.upperBound), next: UInt32(nodes.count + 1)))
                try append(&scanner, to: &nodes)
            }
            nodes[at].end = UInt32(scanner.offset)
            nodes[at].next = UInt32(nodes.count)
        case .array:
            let at = nodes.count
            nodes.append(Node(kind: .array, flag: false, start: start, end: start, next: 0))
            try scanner.beginArray()
            var first = true
            while try scanner.nextElement(isFirst: &first) { try append(&scanner, to: &nodes) }
            nodes[at].end = UInt32(scanner.offset)
            nodes[at].next = UInt32(nodes.count)
        case .string:
            let token = try scanner.readStringToken()
            nodes.append(Node(kind: .string, flag: token.hasEscapes, start: UInt32(token.contents.lowerBound),
                              end: UInt32(token.contents.upperBound), next: UInt32(nodes.count + 1)))
        case .number:
            let (range, isInteger) = try scanner.readNumberToken()
            nodes.append(Node(kind: .number, flag: isInteger, start: UInt32(range.lowerBound), end: UInt32(range.upperBound),
                              next: UInt32(nodes.count + 1)))
        case .bool:
            let value = try scanner.readBool()
            nodes.append(Node(kind: .bool, flag: value, start: start, end: UInt32(scanner.offset), next: UInt32(nodes.count + 1)))
        case .null:
            try scanner.readNull()
            nodes.append(Node(kind: .null, flag: false, start: start, end: UInt32(scanner.offset), next: UInt32(nodes.count + 1)))
        }
    }

    // MARK: Reading

    /// The node of the value of the member named `key` of the object at `object`: the last one, as
    /// `JSONObject`'s subscript reads a member given twice. Nil when it has none (or `object` is no object).
    func member(_ key: String, of object: Int) -> Int? {
        guard nodes[object].kind == .object else { return nil }
        var key = key
        return key.withUTF8 { wanted in
            source.withUnsafeBufferPointer { buffer in
                var found: Int?
                var index = object + 1
                let end = Int(nodes[object].next)
                while index < end {
                    if keyEquals(nodes[index], wanted, in: buffer) { found = index + 1 }
                    index = Int(nodes[index + 1].next)
                }
                return found
            }
        }
    }

    /// Whether the string (or key) `node` is the UTF-8 `wanted`.
    private func keyEquals(_ node: Node, _ wanted: UnsafeBufferPointer<UInt8>, in buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        if node.flag { return string(node, in: buffer).utf8.elementsEqual(wanted) }
        let count = Int(node.end - node.start)
        guard count == wanted.count else { return false }
        let from = base + Int(node.start)
        for i in 0..<count where buffer[from + i] != wanted[i] { return false }
        return true
    }

    /// Whether the string at `index` is `text`, without making a `String` of it.
    func string(at index: Int, equals text: String) -> Bool {
        var text = text
        return text.withUTF8 { wanted in
            source.withUnsafeBufferPointer { buffer in keyEquals(nodes[index], wanted, in: buffer) }
        }
    }

    /// The nodes of the elements of the array at `array`.
    func elements(of array: Int) -> [Int] {
        var out: [Int] = []
        var index = array + 1
        let end = Int(nodes[array].next)
        while index < end {
            out.append(index)
            index = Int(nodes[index].next)
        }
        return out
    }

    /// The text of the string at `index`, escapes decoded.
    func string(at index: Int) -> String {
        source.withUnsafeBufferPointer { buffer in string(nodes[index], in: buffer) }
    }

    private func string(_ node: Node, in buffer: UnsafeBufferPointer<UInt8>) -> String {
        let value = UnsafeBufferPointer(rebasing: buffer[(base + Int(node.start))..<(base + Int(node.end))])
        guard node.flag else { return String(decoding: value, as: UTF8.self) }
        return JSONScanner(bytes: value, maxDepth: 0).string(JSONScanner.StringToken(contents: 0..<value.count, hasEscapes: true))
    }

    /// The number at `index`, as `JSONScanner.readNumber` gives it.
    func number(at index: Int) -> JSONNumber {
        let node = nodes[index]
        return source.withUnsafeBufferPointer { buffer in
            let literal = UnsafeBufferPointer(rebasing: buffer[(base + Int(node.start))..<(base + Int(node.end))])
            return JSONNumber(literal: literal, isInteger: node.flag)
        }
    }

    /// The value at `index` as a tree, for the few callers that keep one.
    func value(at index: Int) -> JSONValue {
        let node = nodes[index]
        switch node.kind {
        case .string: return .string(string(at: index))
        case .number: return .number(number(at: index))
        case .bool: return .bool(node.flag)
        case .null: return .null
        case .object, .array:
            return source.withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(bytes: UnsafeBufferPointer(rebasing: buffer[(base + Int(node.start))..<(base + Int(node.end))]),
                                          maxDepth: Int.max)
                // Checked when the tape was made: cannot fail.
                return (try? scanner.parseValue()) ?? .null
            }
        }
    }
}
