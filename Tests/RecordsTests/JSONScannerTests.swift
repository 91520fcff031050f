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

    /// Compaction's rule a byte at a time, as a reference.
    private static func compactedByteByByte(_ bytes: [UInt8]) -> String {
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

    @Test("compaction copies long strings eight bytes at a time: a quote or backslash at every offset, multi-byte text, spaces")
    func compactionOfLongStrings() {
        let reference = Self.compactedByteByByte
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

    @Test("a string's end found a word at a time: the first quote, backslash or control byte of eight, whatever is around it")
    func stringEndMask() {
        // Every byte value at every place in a word, after bytes that are ordinary (including UTF-8's high
        // bytes) and before ones that are flagged too: the lowest flag names exactly the first such byte.
        func isEnd(_ byte: UInt8) -> Bool { byte == 0x22 || byte == 0x5C || byte < 0x20 }
        for place in 0..<8 {
            for value in 0...255 {
                for (before, after) in [(UInt8(0x61), UInt8(0x61)), (0xC3, 0x00), (0xFF, 0x22), (0x20, 0x1F)] {
                    var bytes = [UInt8](repeating: before, count: 8)
                    bytes[place] = UInt8(value)
                    for later in (place + 1)..<8 { bytes[later] = after }
                    let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                    let mask = JSONScanner.stringEndMask(word)
                    let expected = bytes.firstIndex(where: isEnd)
                    #expect((mask == 0 ? nil : mask.trailingZeroBitCount >> 3) == expected, "byte \(value) at \(place), \(bytes)")
                }
            }
        }
        // Strings whose end, escape or bad byte falls at every offset of a word, read through the scanner.
        for length in 0..<20 {
            let body = String(repeating: "é", count: length / 2) + String(repeating: "a", count: length % 2)
            for (tail, expected) in [("\"", Optional(body)), (#"\n""#, body + "\n"), ("\u{01}\"", nil)] {
                let source = Array("[\"\(body)\(tail)]".utf8)
                let parsed = try? JSONDocument.parse(source)
                if let expected {
                    #expect(parsed == .array([.string(expected)]), "\(length) \(tail)")
                } else {
                    #expect(parsed == nil, "a raw control byte after \(length)")
                }
            }
        }
    }

    @Test("indentation of any length, spaces, tabs and line ends mixed: compaction drops it, the scanner steps over and counts it")
    func compactionOfIndentation() {
        for depth in 0..<20 {
            for (indent, tail) in [(" ", ""), (" ", "\t"), ("\t", " "), (" ", "\r\n  ")] {
                let pad = "\n" + String(repeating: indent, count: depth) + tail
                let source = Array("{\(pad)\"a\":\(pad)[\(pad)\"  x  y \",\(pad)1,\(pad){\(pad)\"b\" :  \"\(String(repeating: " ", count: depth))\"}\(pad)]\(pad)}\(pad)".utf8)
                let compact = source.withUnsafeBufferPointer { JSONCompaction.string($0) }
                let expected = #"{"a":["  x  y ",1,{"b":""# + String(repeating: " ", count: depth) + #""}]}"#
                #expect(compact == expected, "indentation \(depth) of \(indent.debugDescription)")
                #expect(compact == Self.compactedByteByByte(source))
                // The scanner steps over the same whitespace, and counts every byte of it (what tells a
                // resource that is compact already).
                #expect((try? JSONDocument.parse(source)) == (try? JSONDocument.parse(Array(expected.utf8))))
                let skipped = source.withUnsafeBufferPointer { bytes -> Int? in
                    var scanner = JSONScanner(bytes: bytes, maxDepth: 16, offset: 0)
                    guard (try? scanner.skipValue()) != nil else { return nil }
                    scanner.skipWhitespace()
                    return scanner.isAtEnd ? scanner.whitespaceBytes : nil
                }
                #expect(skipped == source.count - expected.utf8.count, "indentation \(depth) of \(indent.debugDescription)")
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
