import HealthRecord
@testable import Records
import TestSupport
import Testing

/// The JSON layer on its own: RFC 8259 grammar, strings, numbers, compaction.
@Suite("JSON")
struct JSONScannerTests {
    private func parse(_ text: String) throws(JSONScanError) -> JSONValue {
        try JSONDocument.parse(Array(text.utf8))
    }

    @Test("grammar RFC 8259 forbids is refused", arguments: [
        "01", "1.", ".5", "+1", "-", "1e", "1e+", "[1,]", #"{"a":1,}"#, #"{"a" 1}"#, "{'a':1}", "NaN", "Infinity",
        "[1 2]", #"{"a":1}}"#, #""\x""#, "tru", "nul", #""abc"#, "// c\n{}", "[", "{", #"{"a"}"#, #"{1:2}"#,
        #""\u12""#, #""\u00zz""#, "\u{0B}[]", "[1]\u{0}",
    ])
    func rejects(text: String) {
        #expect(throws: JSONScanError.self) { try parse(text) }
    }

    @Test("every kind of value parses, with whitespace anywhere it is allowed")
    func values() throws {
        let value = try parse(" { \"a\" : [ 1 , -2.5e3 , true , false , null , \"s\" ] , \"b\" : { } , \"c\" : [ ] } \r\n\t")
        let object = try #require(value.objectValue)
        #expect(object.members.map(\.key) == ["a", "b", "c"])
        let a = try #require(object["a"]?.arrayValue)
        #expect(a.count == 6)
        guard case let .number(number) = a[1] else { Issue.record("not a number"); return }
        #expect(number.literal == "-2.5e3")
        #expect(number.double == -2500)
        #expect(number.int64 == nil)
        #expect(a[2] == .bool(true))
        #expect(a[4] == .null)
        #expect(a[5] == .string("s"))
    }

    @Test("integers beyond a Double's precision stay exact")
    func bigIntegers() throws {
        guard case let .number(number) = try parse("9007199254740993") else { Issue.record("not a number"); return }
        #expect(number.int64 == 9007199254740993)
        guard case let .number(negative) = try parse("-9223372036854775808") else { Issue.record("not a number"); return }
        #expect(negative.int64 == Int64.min)
        guard case let .number(tooBig) = try parse("9223372036854775808") else { Issue.record("not a number"); return }
        #expect(tooBig.int64 == nil)
        #expect(tooBig.double == 9223372036854775808.0)
    }

    @Test("string escapes decode, surrogate pairs join, lone surrogates become U+FFFD", arguments: [
        (#""a\"b\\c\/d\b\f\n\r\t""#, "a\"b\\c/d\u{8}\u{C}\n\r\t"),
        (#""\u00e9\u4E2D""#, "é中"),
        (#""\ud83e\ude7a""#, "🩺"),
        (#""\ud800x""#, "\u{FFFD}x"),
        (#""\udc00""#, "\u{FFFD}"),
        (#""\ud800\u0041""#, "\u{FFFD}A"),
        (#""plain""#, "plain"),
        (#""""#, ""),
    ])
    func escapes(literal: String, expected: String) throws {
        #expect(try parse(literal) == .string(expected))
    }

    @Test("a byte-order mark before the document is ignored")
    func byteOrderMark() throws {
        #expect(try JSONDocument.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)).arrayValue?.count == 1)
    }

    @Test("duplicate keys are all kept in order; lookup gives the last")
    func duplicateKeys() throws {
        let object = try #require(try parse(#"{"a":1,"a":2}"#).objectValue)
        #expect(object.members.count == 2)
        guard case let .number(number)? = object["a"] else { Issue.record("not a number"); return }
        #expect(number.literal == "2")
    }

    @Test("compaction drops whitespace between tokens only")
    func compaction() {
        let source = Array(" { \"a b\" : [ 1 ,\n\t2 ] , \"c\\\" d\" : \"e \\\\\" } ".utf8)
        let compact = source.withUnsafeBufferPointer { JSONCompaction.string($0) }
        #expect(compact == #"{"a b":[1,2],"c\" d":"e \\"}"#)
        var appended: [UInt8] = Array("x".utf8)
        source.withUnsafeBufferPointer { JSONCompaction.append($0, to: &appended) }
        #expect(String(decoding: appended, as: UTF8.self) == "x" + compact)
    }

    @Test("compaction copies long strings eight bytes at a time: a quote or backslash at every offset, multi-byte text, spaces")
    func compactionOfLongStrings() {
        // The same rule a byte at a time, as a reference.
        func reference(_ bytes: [UInt8]) -> String {
            var out: [UInt8] = []
            var inString = false, escaped = false
            for byte in bytes {
                if inString {
                    out.append(byte)
                    if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                } else if ![0x20, 0x0A, 0x0D, 0x09].contains(byte) {
                    if byte == 0x22 { inString = true }
                    out.append(byte)
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
        for offset in 0..<20 {
            for special in [#"\""#, #"\\"#, #"\n"#, #"\u00e9"#, "é ü 漢"] {
                let text = String(repeating: "a b", count: offset) + special + String(repeating: "xyz ", count: 5)
                let source = Array(" {\n  \"k ey\" : \"\(text)\" ,\t\"n\" : [ \"\(special)\", 1.5e3 ] }\n".utf8)
                let compact = source.withUnsafeBufferPointer { JSONCompaction.string($0) }
                #expect(compact == reference(source), "offset \(offset), \(special)")
                #expect(compact.hasPrefix(#"{"k ey":""#) && compact.hasSuffix("1.5e3]}"))
            }
        }
    }

    @Test("line completeness: a whole object or array on one line, and nothing else")
    func balance() {
        #expect(JSONBalance.isCompleteValue(Array(#"{"a":"}{","b":[1]}"#.utf8)))
        #expect(JSONBalance.isCompleteValue(Array("  [1, {\"x\": \"\\\"]\"}]  \r\n".utf8)))
        #expect(!JSONBalance.isCompleteValue(Array(#"{ "_id" : "4dcbecdb431a5f5878000004","#.utf8)))
        #expect(!JSONBalance.isCompleteValue(Array("{".utf8)))
        #expect(!JSONBalance.isCompleteValue(Array(#"  "first" : "Rosa","#.utf8)))
        #expect(!JSONBalance.isCompleteValue(Array("{} {}".utf8)))
        #expect(!JSONBalance.isCompleteValue(Array("}{".utf8)))
        #expect(!JSONBalance.isCompleteValue(Array("42".utf8)))
    }
}
