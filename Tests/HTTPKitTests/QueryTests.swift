import HTTPKit
import Testing

@Suite("Query strings and percent-decoding")
struct QueryTests {
    @Test("a repeated query name keeps every value, in order")
    func repeatedNames() throws {
        let query = try Query(parsing: "a=1&b=2&a=3")
        #expect(query.values(for: "a") == ["1", "3"])
        #expect(query["a"] == "1")
        #expect(query["b"] == "2")
        #expect(query["c"] == nil)
    }

    @Test("percent escapes and plus signs decode; %2B stays a plus", arguments: [
        ("q=hello%20world", "hello world"),
        ("q=a+b", "a b"),
        ("q=2010-01-01T00%3A00%3A00%2B01%3A00", "2010-01-01T00:00:00+01:00"),
        ("q=caf%C3%A9", "café"),
        ("q=", ""),
        ("q", ""),
    ])
    func decoding(raw: String, expected: String) throws {
        #expect(try Query(parsing: raw)["q"] == expected)
    }

    @Test("empty pairs are skipped")
    func emptyPairs() throws {
        let query = try Query(parsing: "&&a=1&&")
        #expect(query.items == [Query.Item(name: "a", value: "1")])
    }

    @Test("a malformed escape or invalid UTF-8 is a 400", arguments: ["q=%", "q=%2", "q=%zz", "q=%C3", "%FF=1"])
    func malformed(raw: String) {
        #expect(throws: HTTPError.self) { try Query(parsing: raw) }
        do {
            _ = try Query(parsing: raw)
        } catch {
            #expect(error.status == .badRequest)
            #expect(error.code == "bad_query")
        }
    }

    @Test("the one-pass parser gives what splitting on & and = then decoding gives, on 5,000 random queries")
    func sameAsSplitting() throws {
        let alphabet = ["a", "b", "=", "&", "%", "+", "2", "B", "3", "D", "C3", "A9", "é", " "]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let raw = (0..<Int.random(in: 0...14, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
            let expected = Self.splitThenDecode(raw)
            let parsed = try? Query(parsing: raw)
            #expect(parsed?.items == expected, "\(raw)")
        }
        #expect(try Query(parsing: "a=b=c&=x&y").items == [
            Query.Item(name: "a", value: "b=c"), Query.Item(name: "", value: "x"), Query.Item(name: "y", value: ""),
        ])
    }

    /// The parser as it was written first: split the pairs, split each at its first `=`, decode both halves.
    private static func splitThenDecode(_ raw: String) -> [Query.Item]? {
        var items: [Query.Item] = []
        for pair in raw.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentDecoding.decode(parts[0], plusAsSpace: true),
                let value = PercentDecoding.decode(parts.count > 1 ? parts[1] : "", plusAsSpace: true)
            else { return nil }
            items.append(Query.Item(name: name, value: value))
        }
        return items
    }

    @Test("path decoding keeps plus signs literal")
    func pathPlus() {
        #expect(PercentDecoding.decode("a+b%2Fc", plusAsSpace: false) == "a+b/c")
        #expect(PercentDecoding.decode("a+b", plusAsSpace: true) == "a b")
        #expect(PercentDecoding.decode("plain", plusAsSpace: true) == "plain")
    }
}
