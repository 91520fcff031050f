import Foundation
import Testing
@testable import Store

@Suite("Schema migrations")
struct MigrationTests {
    @Test("each migration is recorded once and reopening applies nothing again")
    func recordedOnce() throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir)
        let versions = try store.readSync { db in try db.rows("SELECT version FROM schema_migrations ORDER BY version", []) { $0.int64(0) } }
        #expect(versions == Schema.migrations.map { Int64($0.version) })
        store.close()
        let key = try state.keyVault.unlock(password: "correct horse")
        let db = try Database(path: state.databasePath, key: key)
        #expect(try Migrator.migrate(db).isEmpty)
    }

    @Test("a failing migration leaves the previous schema version intact")
    func failingMigrationRollsBack() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("m.db"), key: try StoreKey.random(), mode: .readWriteCreate)
        let steps = [
            Migration(version: 1, name: "one") { db in try db.execute("CREATE TABLE a (x)") },
            Migration(version: 2, name: "two, broken") { db in
                try db.execute("CREATE TABLE b (x)")
                try db.execute("THIS IS NOT SQL")
            },
        ]
        #expect(throws: DatabaseError.self) { try Migrator.migrate(db, migrations: steps) }
        #expect(try db.scalar("SELECT max(version) FROM schema_migrations", as: Int.self) == 1)
        #expect(try db.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'b'", as: Int.self) == 0)
    }

    @Test("a store from a newer hreaderd is refused")
    func newerSchemaRefused() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("n.db"), key: try StoreKey.random(), mode: .readWriteCreate)
        try Migrator.migrate(db)
        try db.execute("INSERT INTO schema_migrations VALUES (999, 'future', 0)")
        #expect(throws: StoreError.self) { try Migrator.migrate(db) }
    }

    @Test("SQL errors carry SQLite's code, message and the statement")
    func errorsCarryDetail() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("e.db"), key: nil, mode: .readWriteCreate)
        #expect {
            try db.execute("SELECT * FROM missing_table", [])
        } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            return error.message.contains("no such table") && error.sql == "SELECT * FROM missing_table" && error.primaryCode == 1
        }
    }

    @Test("a transaction commits on return and rolls back on throw")
    func transactions() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("t.db"), key: nil, mode: .readWriteCreate)
        try db.execute("CREATE TABLE t (x INTEGER)")
        try db.transaction { db in try db.execute("INSERT INTO t VALUES (1)") }
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.transaction { db in
                try db.execute("INSERT INTO t VALUES (2)")
                throw Boom()
            }
        }
        #expect(try db.rows("SELECT x FROM t", []) { $0.int64(0) } == [1])
        #expect(!db.isInTransaction)
    }
}
