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

    @Test("text and blobs bound from the arena stay whole over many runs: empty, small, at and past the block's size")
    func arenaValuesOverManyRuns() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("b.db"), key: nil, mode: .readWriteCreate)
        try db.execute("CREATE TABLE t (n INTEGER PRIMARY KEY, a TEXT, b TEXT, c BLOB)")
        let insert = try db.statement("INSERT INTO t (n, a, b, c) VALUES (?, ?, ?, ?)")
        let block = BindingArena.blockBytes
        // Together a run's values overflow the block, so some land in the block and some in blocks of their own.
        let sizes = [0, 1, 15, 16, 100, block - 1, block, block + 1, 3 * block]
        func text(_ n: Int, _ run: Int) -> String {
            String(repeating: Character(UnicodeScalar(UInt8(97 + run % 26))), count: n)
        }
        func blob(_ n: Int, _ run: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: $0 &+ run) } }
        for run in 0..<(3 * sizes.count) {
            let (a, b) = (sizes[run % sizes.count], sizes[(run * 5 + 3) % sizes.count])
            try insert.execute { (x: inout Bindings) throws(DatabaseError) in
                try x.bind(Int64(run)); try x.bind(text(a, run)); try x.bind(text(b, run + 1) + "\u{0}é"); try x.bind(blob(b, run))
            }
        }
        let rows = try db.rows("SELECT n, a, b, c FROM t ORDER BY n") { ($0.int64(0), $0.string(1), $0.string(2), $0.bytes(3)) }
        #expect(rows.count == 3 * sizes.count)
        for (run, a, b, c) in rows {
            let r = Int(run)
            let (na, nb) = (sizes[r % sizes.count], sizes[(r * 5 + 3) % sizes.count])
            // Compared whole, reported by run (values of up to 48 KB).
            #expect(a == text(na, r), "run \(r): the first text")
            #expect(b == text(nb, r + 1) + "\u{0}é", "run \(r): the second text")
            #expect(c == blob(nb, r), "run \(r): the blob")
        }
    }

    @Test("a value past the arena's block is freed when its run is over; the next run binds as before")
    func largeValueFreedAfterItsRun() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("b.db"), key: nil, mode: .readWriteCreate)
        try db.execute("CREATE TABLE t (a, b)")
        let insert = try db.statement("INSERT INTO t VALUES (?, ?)")
        let large = String(repeating: "x", count: 3 * BindingArena.blockBytes)
        try insert.execute { (x: inout Bindings) throws(DatabaseError) in try x.bind(large); try x.bind("small") }
        #expect(!insert.arena.holdsOwnBlocks)
        try insert.execute { (x: inout Bindings) throws(DatabaseError) in try x.bind("next"); try x.bind("run") }
        let rows = try db.rows("SELECT a, b FROM t ORDER BY rowid") { ($0.string(0), $0.string(1)) }
        #expect(rows.count == 2)
        #expect(rows.first?.0 == large && rows.first?.1 == "small")
        #expect(rows.last?.0 == "next" && rows.last?.1 == "run")
    }

    @Test("a run whose binding failed leaves the next run's values its own")
    func runAfterFailedBinding() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("b.db"), key: nil, mode: .readWriteCreate)
        try db.execute("CREATE TABLE t (a, b)")
        let insert = try db.statement("INSERT INTO t VALUES (?, ?)")
        try insert.execute { (x: inout Bindings) throws(DatabaseError) in try x.bind("first a"); try x.bind("first b") }
        #expect(throws: DatabaseError.self) { try insert.execute { (x: inout Bindings) throws(DatabaseError) in try x.bind("half") } }
        try insert.execute { (x: inout Bindings) throws(DatabaseError) in try x.bind("second a"); try x.bind("second b") }
        let rows = try db.rows("SELECT a || '/' || b FROM t ORDER BY rowid") { $0.string(0) }
        #expect(rows == ["first a/first b", "second a/second b"])
    }

    @Test("the arena fills its block to the edge, gives a value past it a block of its own, and starts over at reset")
    func arenaBlockEdge() {
        let arena = BindingArena()
        let block = BindingArena.blockBytes
        let small = [UInt8](repeating: 1, count: 100)
        let rest = [UInt8](repeating: 2, count: block - 100)
        let first = small.withUnsafeBytes { arena.copy($0) }
        let second = rest.withUnsafeBytes { arena.copy($0) }
        #expect(second == first + 100)  // the block, to its last byte
        let past = [UInt8](repeating: 3, count: 1)
        let own = past.withUnsafeBytes { arena.copy($0) }
        #expect(own != second + (block - 100))  // not past the block's end
        #expect(UnsafeRawBufferPointer(start: first, count: 100).allSatisfy { $0 == 1 })
        #expect(UnsafeRawBufferPointer(start: second, count: block - 100).allSatisfy { $0 == 2 })
        #expect(own.load(as: UInt8.self) == 3)
        let empty = [UInt8]().withUnsafeBytes { arena.copy($0) }
        #expect(Int(bitPattern: empty) != 0)
        arena.reset()
        #expect(small.withUnsafeBytes { arena.copy($0) } == first)
    }
}
