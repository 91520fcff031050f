import Foundation
import FuzzSupport
import HTTPKit
import RHExClient
import Store
import TimelineAPI

/// The daemon's other parsers: form and JSON post bodies, the query string, the Atom patient feed, search
/// queries (against FTS4). The record formats' harnesses are in `hreaderd-fuzz-records`.
@main
enum FuzzMain {
    static func main() {
        FuzzDriver.run(["form": FuzzTargets.form, "json": FuzzTargets.json, "query": FuzzTargets.query,
                        "feed": FuzzTargets.feed, "search": FuzzTargets.search])
    }
}

enum FuzzTargets {
    /// An FTS4 index in memory, as the store's: what a query becomes must never be an SQL or FTS error.
    nonisolated(unsafe) static let searchIndex: Database? = {
        guard let db = try? Database(path: ":memory:", key: nil, mode: .readWriteCreate) else { return nil }
        try? db.execute(#"CREATE VIRTUAL TABLE search USING fts4(body, tokenize=unicode61 "remove_diacritics=1", matchinfo=fts3); INSERT INTO search (body) VALUES ('Serum potassium LOINC 2823-3'), ('Ménière disease');"#)
        return db
    }()

    /// Any text as a search query: refused with a reason, or terms whose MATCH expression is only quoted
    /// words (letters, digits, a trailing *), the same twice, and accepted by FTS4 without an error.
    static func search(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let first = Result { () throws(SearchQueryError) in try SearchTerms.parse(text) }
        let second = Result { () throws(SearchQueryError) in try SearchTerms.parse(text) }
        switch (first, second) {
        case (.success(let a), .success(let b)):
            check(a == b, "the search query parser gave two answers for one input")
            let expression = a.matchExpression
            // Scalars, not Characters: a combining mark after a space groups with it into one Character.
            let syntax: Set<Unicode.Scalar> = ["\"", "*", " ", "(", ")", ":", "^", "-"]
            check(a.tokens.allSatisfy { !$0.isEmpty && $0.unicodeScalars.allSatisfy { !syntax.contains($0) && $0.value >= 0x20 } },
                  "a search term holds FTS syntax or a control character: \(expression)")
            check(expression.unicodeScalars.filter { $0 == "\"" }.count == 2 * a.terms.count, "a search expression's quotes do not pair up")
            if let db = searchIndex {
                do { _ = try db.rows("SELECT docid, matchinfo(search, 'pcx') FROM search WHERE search MATCH ?", [expression]) { $0.int64(0) } } catch {
                    check(false, "FTS4 refused a search expression: \(expression): \(error)")
                }
            }
        case (.failure(let a), .failure(let b)):
            check(a == b, "the search query parser failed two ways on one input")
        default: check(false, "the search query parser failed once and succeeded once on one input")
        }
    }

    /// A form that parses re-encodes to a form that parses to the same fields.
    static func form(_ bytes: [UInt8]) {
        guard let fields = try? FormBody.parse(bytes) else { return }
        var encoded: [String] = []
        for (name, value) in fields.fields {
            let values: [String]
            switch value {
            case .string(let s), .number(let s): values = [s]
            case .bool(let b): values = [b ? "true" : "false"]
            case .list(let items): values = items
            }
            for v in values { encoded.append(formEncode(name) + "=" + formEncode(v)) }
        }
        let again = try? FormBody.parse(Array(encoded.joined(separator: "&").utf8), limits: roomy)
        check(again == fields, "a parsed form did not survive re-encoding")
    }

    /// A JSON body that parses is stored as `fields.json`, which parses to the same fields.
    static func json(_ bytes: [UInt8]) {
        guard let fields = try? FlatJSONBody.parse(bytes) else { return }
        let again = try? FlatJSONBody.parse(Array(fields.json.utf8), limits: roomy)
        check(again == fields, "a parsed JSON body did not survive its stored form: \(fields.json)")
    }

    /// A query that parses gives the same items twice; the text is taken as the target's query string.
    static func query(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let query = try? Query(parsing: text) else { return }
        let again = try? Query(parsing: text)
        check(again == query, "the query parser gave two answers for one input")
        for item in query.items { _ = query.values(for: item.name) }
    }

    /// The Atom patient feed: the same entries twice, each with a non-empty record id, none repeated.
    static func feed(_ bytes: [UInt8]) {
        let first = try? PatientFeed.parse(bytes, url: feedURL)
        let second = try? PatientFeed.parse(bytes, url: feedURL)
        check(first == second, "the feed parser gave two answers for one input")
        guard let entries = first?.entries else { return }
        check(entries.allSatisfy { !$0.recordID.isEmpty }, "a feed entry has an empty record id")
        check(Set(entries.map(\.recordID)).count == entries.count, "a feed repeats a record id")
    }

    static let feedURL = URL(string: "http://127.0.0.1:8421/")!

    /// The stored form may be longer than the body (escapes), so re-parse it without the size limit.
    static let roomy: PostLimits = {
        var limits = PostLimits()
        limits.maximumBodyBytes = 1 << 20
        limits.maximumValueBytes = 1 << 20
        return limits
    }()

    static func formEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    static func check(_ condition: Bool, _ message: @autoclosure () -> String) { FuzzDriver.check(condition, message()) }
}
