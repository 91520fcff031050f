@testable import Records
import Testing

/// The flat parse the FHIR mapping reads resources through: it must read every value as the tree
/// (`JSONValue`) does, and refuse what the scanner refuses.
@Suite("JSON tape")
struct JSONTapeTests {
    static let documents = [
        #"{}"#,
        #"[]"#,
        #"{"a":1,"b":[true,false,null,"s",{"c":{}}],"d":{"e":[[],[{}]],"f":-2.5e3},"g":"h"}"#,
        " { \"a\" : [ 1 , -2.5e3 , true ] , \"b\" : { } , \"c\" : [ ] } \r\n\t",
        #"{"k\u00e9y":"v\n\"q\"\\\ud83d\ude00","k\u00e9y":"later","x":"\ud800"}"#,
        #"{"n":12345678901234567890,"m":0.1,"i":-7,"z":0}"#,
        #"[1,"two",{"three":[3]},[4,[5,[6]]]]"#,
        #"{"resourceType":"Observation","code":{"coding":[{"system":"http://loinc.org","code":"8867-4"}]},"valueQuantity":{"value":72,"unit":"/min"}}"#,
    ]

    static func tape(_ text: String, maxDepth: Int = 64) throws(JSONScanError) -> JSONTape {
        let bytes = Array(text.utf8)
        return try JSONTape.parse(bytes, range: 0..<bytes.count, maxDepth: maxDepth)
    }

    /// The tree read back from the tape, member by member and element by element, through its reading API.
    static func tree(_ tape: JSONTape, _ index: Int) -> JSONValue {
        let node = tape.nodes[index]
        switch node.kind {
        case .object:
            var members: [JSONObject.Member] = []
            var at = index + 1
            while at < Int(node.next) {
                members.append(JSONObject.Member(key: tape.string(at: at), value: tree(tape, at + 1)))
                at = Int(tape.nodes[at + 1].next)
            }
            return .object(JSONObject(members: members))
        case .array: return .array(tape.elements(of: index).map { tree(tape, $0) })
        case .string: return .string(tape.string(at: index))
        case .number: return .number(tape.number(at: index))
        case .bool: return .bool(node.flag)
        case .null: return .null
        }
    }

    @Test("every value reads as the tree parser reads it", arguments: documents)
    func sameAsTree(text: String) throws {
        let expected = try JSONDocument.parse(Array(text.utf8))
        let tape = try Self.tape(text)
        #expect(Self.tree(tape, 0) == expected)
        #expect(tape.value(at: 0) == expected)
        // Each node's `next` is past its whole value: the nodes of the root are all of them.
        #expect(Int(tape.nodes[0].next) == tape.nodes.count)
    }

    @Test("a member is found by its key, the last of two alike, escaped keys too; an absent one is nil")
    func members() throws {
        let tape = try Self.tape(Self.documents[4])
        let key = try #require(tape.member("kéy", of: 0))
        #expect(tape.string(at: key) == "later")
        #expect(tape.member("x", of: 0).map { tape.string(at: $0) } == "\u{FFFD}")
        #expect(tape.member("k", of: 0) == nil)
        #expect(tape.member("kéyx", of: 0) == nil)

        let nested = try Self.tape(Self.documents[2])
        // After a member whose value spans many nodes.
        let g = try #require(nested.member("g", of: 0))
        #expect(nested.string(at: g) == "h")
        let d = try #require(nested.member("d", of: 0))
        #expect(nested.member("f", of: d).map { nested.number(at: $0).literal } == "-2.5e3")
        // Only the object's own members: `c` is deeper down.
        #expect(nested.member("c", of: 0) == nil)
        // Not an object.
        let b = try #require(nested.member("b", of: 0))
        #expect(nested.member("c", of: b) == nil)
        #expect(nested.elements(of: b).count == 5)
    }

    @Test("a string is compared without being made, escapes decoded")
    func stringEquals() throws {
        let tape = try Self.tape(#"{"a":"v\u00e9","b":"v","c":"vé","d":""}"#)
        let (a, b, c, d) = try (#require(tape.member("a", of: 0)), #require(tape.member("b", of: 0)),
                                #require(tape.member("c", of: 0)), #require(tape.member("d", of: 0)))
        #expect(tape.string(at: a, equals: "vé"))
        #expect(tape.string(at: c, equals: "vé"))
        #expect(!tape.string(at: b, equals: "vé"))
        #expect(!tape.string(at: c, equals: "v"))
        #expect(tape.string(at: d, equals: ""))
        #expect(!tape.string(at: d, equals: "v"))
    }

    @Test("numbers keep their literal, exact integers and their value")
    func numbers() throws {
        let tape = try Self.tape(Self.documents[5])
        let n = try #require(tape.member("n", of: 0).map { tape.number(at: $0) })
        #expect(n.literal == "12345678901234567890")
        #expect(n.int64 == nil)
        #expect(tape.member("i", of: 0).map { tape.number(at: $0).int64 } == -7)
        #expect(tape.member("m", of: 0).map { tape.number(at: $0).double } == 0.1)
    }

    @Test("what the scanner refuses, the tape refuses", arguments: [
        "", "{", #"{"a":}"#, #"{"a":1,}"#, "[1 2]", #"{"a":1}}"#, #""\x""#, "[01]", #"{"a" 1}"#,
    ])
    func refuses(text: String) {
        #expect(throws: JSONScanError.self) { try Self.tape(text) }
    }

    @Test("nesting past maxDepth is refused, at it read")
    func depth() throws {
        #expect(throws: JSONScanError.self) { try Self.tape("[[[1]]]", maxDepth: 2) }
        #expect(try Self.tape("[[[1]]]", maxDepth: 3).nodes.count == 4)
    }

    @Test("a value inside a larger buffer: offsets from its own first byte")
    func slice() throws {
        let bytes = Array(#"xx{"a":"b","c":[1]}yy"#.utf8)
        let tape = try JSONTape.parse(bytes, range: 2..<(bytes.count - 2), maxDepth: 8)
        #expect(tape.member("a", of: 0).map { tape.string(at: $0) } == "b")
        #expect(tape.member("c", of: 0).map { tape.value(at: $0) } == .array([.number(tape.number(at: 5))]))
        #expect(JSONTape.emptyObject.member("a", of: 0) == nil)
        #expect(JSONTape.emptyObject.value(at: 0) == .object(JSONObject(members: [])))
    }
}
