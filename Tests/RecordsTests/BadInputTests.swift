import Records
import HealthRecord
import TestSupport
import Testing

/// Malformed and hostile documents fail with a typed error that says what and where, and never crash.
@Suite("bad input")
struct BadInputTests {
    @Test("text that is not JSON is notJSON at the first bad byte", arguments: [
        ("hello", 0),
        (#"{"_id": }"#, 8),
        (#"{"_id":"x","conditions":["#, 25),
        (#"{"_id":"x"} x"#, 12),
        (#"{"_id":"x",}"#, 11),
        (#"{"_id":'x'}"#, 7),
        (#"{"_id":"x" "first":"y"}"#, 11),
        ("{\"_id\":\"a\tb\"}", 9), // a raw tab inside a string
        (#"{"_id":"x","time":01}"#, 19), // "0" is a number; the "1" after it is not
        (#"{"_id":"\q"}"#, 8),
    ])
    func notJSON(text: String, offset: Int) {
        guard case let .notJSON(at, reason)? = parseError(text) else {
            Issue.record("expected notJSON for \(text), got \(String(describing: parseError(text)))")
            return
        }
        #expect(at == offset, "\(reason)")
        #expect(!reason.isEmpty)
    }

    @Test("an empty or blank document is notJSON", arguments: ["", "   \n"])
    func empty(text: String) {
        #expect(parseError(text) == .notJSON(offset: text.utf8.count, reason: "empty document"))
    }

    @Test("JSON that is not an object at the top is the wrong shape", arguments: ["[]", #"[{"_id":"x"}]"#, #""record""#, "42", "null"])
    func topLevelNotObject(text: String) {
        #expect(parseError(text) == .wrongShape(path: "$", expected: "an object (one patient record)"))
    }

    @Test("a top-level array that is also broken JSON is notJSON, not wrong shape")
    func brokenArray() {
        guard case .notJSON? = parseError("[1,") else {
            Issue.record("expected notJSON")
            return
        }
    }

    @Test("a section that is not an array is the wrong shape, with its path", arguments: [
        #"{"_id":"x","conditions":{}}"#, #"{"_id":"x","conditions":"none"}"#, #"{"_id":"x","conditions":3}"#,
    ])
    func sectionNotArray(text: String) {
        #expect(parseError(text) == .wrongShape(path: "$.conditions", expected: "an array of entries"))
    }

    @Test("an entry that is not an object is the wrong shape, with its index")
    func entryNotObject() {
        #expect(parseError(#"{"_id":"x","results":[{},1]}"#) == .wrongShape(path: "$.results[1]", expected: "an entry object"))
        #expect(parseError(#"{"_id":"x","vital_signs":[[]]}"#) == .wrongShape(path: "$.vital_signs[0]", expected: "an entry object"))
    }

    @Test("a record without _id cannot be identified unless the caller gives its id")
    func missingID() throws {
        #expect(parseError(#"{"first":"Ann"}"#) == .wrongShape(path: "$._id", expected: #"a record id: a string or {"$oid": string}"#))
        #expect(parseError(#"{"_id":null}"#) == .wrongShape(path: "$._id", expected: #"a record id: a string or {"$oid": string}"#))
        let record = try parseRecord(#"{"first":"Ann"}"#, recordID: "feed-17")
        #expect(record.recordID == "feed-17")
    }

    @Test("10,000 nested brackets are refused at the depth limit, not by the stack")
    func deeplyNestedArrays() {
        let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(parseError(text) == .tooDeep(offset: 64, maxDepth: 64))
        #expect(parseError(String(repeating: "[", count: 10_000)) == .tooDeep(offset: 64, maxDepth: 64))
    }

    @Test("deep nesting inside a record is refused too; 64 levels are fine")
    func deeplyNestedInsideRecord() throws {
        // The record object is level 1; `"deep"` starts at byte 18.
        let prefix = #"{"_id":"x","deep":"#
        let tooDeep = prefix + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + "}"
        #expect(parseError(tooDeep) == .tooDeep(offset: 18 + 63, maxDepth: 64))
        let deepest = prefix + String(repeating: "[", count: 63) + String(repeating: "]", count: 63) + "}"
        #expect(try parseRecord(deepest).recordID == "x")
        let shallow = ParseLimits(maxDepth: 3)
        #expect(parseError(#"{"_id":"x","results":[{"value":{}}]}"#, limits: shallow) == .tooDeep(offset: 31, maxDepth: 3))
    }

    @Test("bytes that are not UTF-8 are invalidUTF8 at the bad byte", arguments: [
        ([0xFF], "a byte never used in UTF-8"),
        ([0xC0, 0xAF], "an overlong encoding of '/'"),
        ([0xED, 0xA0, 0x80], "a UTF-16 surrogate"),
        ([0xF4, 0x90, 0x80, 0x80], "above U+10FFFF"),
        ([0x80], "a lone continuation byte"),
        ([0xE2, 0x82], "a truncated sequence"),
    ] as [([UInt8], String)])
    func invalidUTF8(bad: [UInt8], what: String) {
        let bytes = Array(#"{"_id":""#.utf8) + bad + Array(#""}"#.utf8)
        #expect(parseError(bytes) == .invalidUTF8(offset: 8), "\(what)")
    }

    /// Characters of every encoded length, 1 to 4 bytes: the first and last of each, and those next to the
    /// code points UTF-8 leaves out (the UTF-16 surrogates, above U+10FFFF).
    static let everyLength: [String] = [
        "~",                                                                // 1 byte
        "\u{80}", "ë", "\u{7FF}",                                          // 2 bytes
        "\u{800}", "李", "\u{D7FF}", "\u{E000}", "\u{FFFD}", "\u{FFFF}",      // 3 bytes
        "\u{10000}", "🩺", "\u{10FFFF}",                                   // 4 bytes
    ]

    @Test("valid UTF-8 of every length is accepted, including after ASCII runs", arguments: everyLength)
    func validUTF8(character: String) throws {
        // The validator reads ASCII eight bytes at a time: runs of 0 to 16 put the character at every
        // offset within those words, and across two of them.
        for run in 0...16 {
            let first = String(repeating: "a", count: run) + character + "z"
            let record = try parseRecord(#"{"_id":"x","first":"\#(first)","last":"\#(character)\#(character)"}"#)
            #expect(record.name == first + " " + character + character, "\(character.utf8.count) bytes after \(run) ASCII bytes")
        }
    }

    @Test("a document over the size limit is refused before it is read")
    func oversize() {
        let small = ParseLimits(maxDocumentBytes: 1024)
        let bytes = Array(#"{"_id":"x","pad":""#.utf8) + [UInt8](repeating: 0x61, count: 2000) + Array(#""}"#.utf8)
        #expect(parseError(bytes, limits: small) == .tooLarge(bytes: bytes.count, maxBytes: 1024))
        // Over the default 64 MiB: refused by its size (the bytes are not even valid JSON).
        let huge = [UInt8](repeating: 0xFF, count: ParseLimits.defaultMaxDocumentBytes + 1)
        #expect(parseError(huge) == .tooLarge(bytes: huge.count, maxBytes: ParseLimits.defaultMaxDocumentBytes))
    }

    @Test("errors read as one clear line")
    func descriptions() {
        #expect(RecordParseError.notJSON(offset: 8, reason: "expected a value, found '}'").description == "not JSON at byte 8: expected a value, found '}'")
        #expect(RecordParseError.wrongShape(path: "$.conditions", expected: "an array of entries").description == "unexpected record shape at $.conditions: expected an array of entries")
        #expect(RecordParseError.tooDeep(offset: 64, maxDepth: 64).description == "JSON nested deeper than 64 levels at byte 64")
        #expect(RecordParseError.tooLarge(bytes: 100, maxBytes: 10).description == "document of 100 bytes is over the limit of 10 bytes")
        #expect(RecordParseError.invalidUTF8(offset: 3).description == "invalid UTF-8 at byte 3")
    }
}
