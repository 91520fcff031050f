import Foundation
import Testing
import HealthRecord
@testable import Store

/// Parameters bound by type (`Statement.execute(binding:)`, an import's insert of each entry) against the same
/// values bound as an array of values.
@Suite("bindings by type")
struct BindingsTests {
    @Test("each type as bound from an array: text (empty is not NULL, a NUL inside kept), integers, reals, blobs, NULLs")
    func sameAsArray() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("b.db"), key: nil, mode: .readWriteCreate)
        try db.execute("CREATE TABLE t (n INTEGER PRIMARY KEY, a, b, c, d, e, f)")
        let insert = try db.statement("INSERT INTO t (n, a, b, c, d, e, f) VALUES (?, ?, ?, ?, ?, ?, ?)")
        let text = "Zoë \u{0}after a NUL, 🩺"
        try insert.execute { (b: inout Bindings) throws(DatabaseError) in
            try b.bind(Int64(1)); try b.bind(text); try b.bind(""); try b.bind(Int64(-5)); try b.bind(2.5)
            try b.bind([0, 1, 255] as [UInt8]); try b.bind(nil as String?)
        }
        try insert.execute([Int64(2), text, "", Int64(-5), 2.5, [0, 1, 255] as [UInt8], nil as String?])
        let rows = try db.rows("SELECT a, b, c, d, e, f, typeof(b), typeof(f) FROM t ORDER BY n") { row in
            (0..<8).map { "\(row[$0])" }
        }
        #expect(rows.count == 2)
        #expect(rows[0] == rows[1])
        #expect(try db.scalar("SELECT typeof(b) || ' ' || typeof(f) FROM t WHERE n = 1", as: String.self) == "text null")
        // Whole, with the NUL and what follows it, both ways.
        #expect(try db.scalar("SELECT a FROM t WHERE n = 1", as: String.self) == text)
        #expect(try db.scalar("SELECT a FROM t WHERE n = 2", as: String.self) == text)
    }

    @Test("too few or too many bound is refused before the statement runs; nothing is written")
    func wrongCount() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("b.db"), key: nil, mode: .readWriteCreate)
        try db.execute("CREATE TABLE t (a, b)")
        let insert = try db.statement("INSERT INTO t VALUES (?, ?)")
        #expect(throws: DatabaseError.self) { try insert.execute { (b: inout Bindings) throws(DatabaseError) in try b.bind("one") } }
        #expect(throws: DatabaseError.self) {
            try insert.execute { (b: inout Bindings) throws(DatabaseError) in try b.bind("one"); try b.bind("two"); try b.bind("three") }
        }
        #expect(try db.scalar("SELECT count(*) FROM t", as: Int64.self) == 0)
    }
}
