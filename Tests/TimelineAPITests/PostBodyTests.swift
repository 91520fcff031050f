import Foundation
import Testing
@testable import TimelineAPI

@Suite("Post bodies: forms and JSON")
struct PostBodyTests {
    func form(_ text: String, limits: PostLimits = .default) throws(PostBodyError) -> PostFields {
        try FormBody.parse(Array(text.utf8), limits: limits)
    }

    func json(_ text: String, limits: PostLimits = .default) throws(PostBodyError) -> PostFields {
        try FlatJSONBody.parse(Array(text.utf8), limits: limits)
    }

    @Test("a form body is percent-decoded and + is a space")
    func formDecoding() throws {
        let fields = try form("description=Ibuprofen+200%20mg&select-choice-freq=BID&note=caf%C3%A9")
        #expect(fields["description"] == .string("Ibuprofen 200 mg"))
        #expect(fields["select-choice-freq"] == .string("BID"))
        #expect(fields["note"] == .string("café"))
        #expect(fields.json == #"{"description":"Ibuprofen 200 mg","select-choice-freq":"BID","note":"café"}"#)
    }

    @Test("a repeated form field keeps every value, as an array")
    func repeatedField() throws {
        let fields = try form("select-choice-by=AD&select-choice-by=ND&x=1")
        #expect(fields["select-choice-by"] == .list(["AD", "ND"]))
        #expect(fields.fields.map(\.name) == ["select-choice-by", "x"])
    }

    @Test("bad form encodings are refused", arguments: [
        ("a=%zz", "malformed"), ("a=%4", "malformed"), ("=v", "malformed"), ("a=%FF%FE", "not UTF-8"), ("a=%00", "NUL"), ("", "no fields"),
    ])
    func badForms(_ body: String, _ expected: String) {
        #expect { try form(body) } throws: { error in "\(error)".contains(expected) }
    }

    @Test("a JSON body is a flat object of strings, numbers and booleans")
    func jsonBody() throws {
        let fields = try json(#" {"pain": 7, "mood": "5", "ok": true, "tags": ["a", 2], "esc": "\u00e9\n\"x\"", "big": -1.5e3} "#)
        #expect(fields["pain"] == .number("7"))
        #expect(fields["mood"] == .string("5"))
        #expect(fields["ok"] == .bool(true))
        #expect(fields["tags"] == .list(["a", "2"]))
        #expect(fields["esc"] == .string("é\n\"x\""))
        #expect(fields["big"] == .number("-1.5e3"))
        #expect(try json(fields.json) == fields)
    }

    @Test("nested, null, duplicate, trailing or broken JSON is refused", arguments: [
        #"{"a": {"b": 1}}"#, #"{"a": [[1]]}"#, #"{"a": null}"#, #"{"a": 1, "a": 2}"#, #"{"a": 1} x"#, #"[1]"#,
        #"{"a": 01}"#, #"{"a": "\ud800"}"#, #"{"a": "x"#, #"{"a" 1}"#, "{}", #"{"": 1}"#, #"{"a": tru}"#, "\"s\"",
    ])
    func badJSON(_ body: String) {
        #expect(throws: PostBodyError.self) { try json(body) }
    }

    @Test("invalid UTF-8 in a JSON body is refused")
    func jsonNotUTF8() {
        #expect(throws: PostBodyError.notUTF8) { try FlatJSONBody.parse([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]) }
    }

    static var tight: PostLimits {
        var limits = PostLimits()
        limits.maximumBodyBytes = 40
        limits.maximumFields = 3
        limits.maximumNameBytes = 4
        limits.maximumValueBytes = 5
        limits.maximumValuesPerField = 2
        return limits
    }

    @Test("each limit passes at its edge and fails one over, for forms")
    func formLimits() throws {
        let l = Self.tight
        _ = try form("a=1&b=2&c=3", limits: l)
        #expect(throws: PostBodyError.self) { try form("a=1&b=2&c=3&d=4", limits: l) }
        _ = try form("abcd=1", limits: l)
        #expect(throws: PostBodyError.self) { try form("abcde=1", limits: l) }
        _ = try form("a=12345", limits: l)
        #expect(throws: PostBodyError.self) { try form("a=123456", limits: l) }
        _ = try form("a=1&a=2", limits: l)
        #expect(throws: PostBodyError.self) { try form("a=1&a=2&a=3", limits: l) }
        _ = try form("a=" + String(repeating: "+", count: 3) + "&" + String(repeating: "&", count: 33), limits: l)
        #expect(throws: PostBodyError.self) { try form("a=1" + String(repeating: "&", count: 38), limits: l) }
    }

    @Test("each limit passes at its edge and fails one over, for JSON")
    func jsonLimits() throws {
        let l = Self.tight
        _ = try json(#"{"a":1,"b":2,"c":3}"#, limits: l)
        #expect(throws: PostBodyError.self) { try json(#"{"a":1,"b":2,"c":3,"d":4}"#, limits: l) }
        _ = try json(#"{"abcd":"12345"}"#, limits: l)
        #expect(throws: PostBodyError.self) { try json(#"{"abcde":1}"#, limits: l) }
        #expect(throws: PostBodyError.self) { try json(#"{"a":"123456"}"#, limits: l) }
        _ = try json(#"{"a":[1,2]}"#, limits: l)
        #expect(throws: PostBodyError.self) { try json(#"{"a":[1,2,3]}"#, limits: l) }
        _ = try json(#"{"a":1}"# + String(repeating: " ", count: 33), limits: l)
        #expect(throws: PostBodyError.self) { try json(#"{"a":1}"# + String(repeating: " ", count: 34), limits: l) }
    }

    @Test("the post key accepts the original names and the new ones", arguments: [
        ("Levels", "levels"), ("levels", "levels"), ("NewMedication", "medication"), ("medication", "medication"),
        ("MedRegiment", "regimen"), ("regimen", "regimen"),
    ])
    func keys(_ key: String, _ kind: String) {
        #expect(PostKey.kind(key)?.rawValue == kind)
    }

    @Test("an unknown or missing key is refused", arguments: [nil, "", "LEVELS", "Other", "levels "] as [String?])
    func badKeys(_ key: String?) {
        #expect(PostKey.kind(key) == nil)
    }
}
