import Foundation
import Testing
import HealthRecord
@testable import Store

@Suite("Encryption at rest")
struct EncryptionAtRestTests {
    @Test("a marker written through the store appears in none of the database, -wal or -shm files")
    func markerIsNotInAnyFile() throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir)
        let marker = "MARKER-\(UUID().uuidString)"
        _ = try store.importRecordSync(.record(entries: .numbered(50, marker: marker)))
        // The store stays open: the data is in the WAL, not yet checkpointed into the main file.
        let wal = fileBytes(state.databasePath + "-wal")
        #expect(wal.count > 0, "the write should be in the WAL while the store is open")
        for path in [state.databasePath, state.databasePath + "-wal", state.databasePath + "-shm"] {
            #expect(!contains(fileBytes(path), marker), "marker found in \(path)")
            #expect(!contains(fileBytes(path), "Test Patient"), "patient name found in \(path)")
        }
        // And it is really there, readable through the store.
        let found = try store.readSync { db in
            try db.scalar("SELECT count(*) FROM entries WHERE description LIKE ?", ["\(marker)%"], as: Int.self)
        }
        #expect(found == 50)
        store.close()
        #expect(!contains(fileBytes(state.databasePath), marker))
    }

    @Test("Debian's sqlcipher tool reads the row with the raw key; sqlite3 cannot open the file",
          .enabled(if: which("sqlcipher") != nil && which("sqlite3") != nil, "needs Debian's sqlcipher and sqlite3 tools"))
    func independentToolsAgree() throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir, password: "pw for tools")
        let marker = "TOOLCHECK-\(UUID().uuidString)"
        try store.writeSync { db in try db.execute("INSERT INTO settings (key, value) VALUES ('marker', ?)", [marker]) }
        store.close()
        let key = try state.keyVault.unlock(password: "pw for tools")
        let script = """
            PRAGMA key = "x'\(key.hexString())'";
            PRAGMA cipher_page_size = 4096;
            SELECT value FROM settings WHERE key = 'marker';
            """
        let sqlcipher = try run(which("sqlcipher")!, [state.databasePath], stdin: script)
        #expect(sqlcipher.out.contains(marker), "sqlcipher printed: \(sqlcipher.out) \(sqlcipher.err)")

        let wrongKey = String(repeating: "ab", count: 32)
        let wrong = try run(which("sqlcipher")!, [state.databasePath],
                            stdin: "PRAGMA key = \"x'\(wrongKey)'\";\nPRAGMA cipher_page_size = 4096;\nSELECT value FROM settings;\n")
        #expect(!wrong.out.contains(marker))

        let sqlite = try run(which("sqlite3")!, [state.databasePath, "SELECT value FROM settings;"])
        #expect(sqlite.status != 0)
        #expect(sqlite.err.contains("not a database"))
        #expect(!sqlite.out.contains(marker))
    }

    @Test("a key that is not the store's does not open the database")
    func wrongKeyIsRejected() throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir)
        store.close()
        let other = try StoreKey.random()
        #expect {
            try Store.open(at: state, key: other)
        } throws: { error in
            guard case StoreError.keyDoesNotMatchDatabase = error else { return false }
            return true
        }
    }

    @Test("the state directory is 0700 and the key file and database are 0600")
    func filePermissions() throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir)
        store.close()
        #expect(state.mode() == 0o700)
        let keyMode = try FileManager.default.attributesOfItem(atPath: state.keyFilePath)[.posixPermissions] as? Int
        let dbMode = try FileManager.default.attributesOfItem(atPath: state.databasePath)[.posixPermissions] as? Int
        #expect(keyMode == 0o600)
        #expect(dbMode == 0o600)
    }

    @Test("the connection is keyed with SQLCipher settings: 4096-byte pages, WAL, full sync")
    func connectionSettings() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        let (pageSize, journal, synchronous) = try store.writeSync { db in
            (try db.scalar("PRAGMA cipher_page_size", as: String.self),
             try db.scalar("PRAGMA journal_mode", as: String.self),
             try db.scalar("PRAGMA synchronous", as: Int.self))
        }
        #expect(pageSize == "4096")
        #expect(journal == "wal")
        #expect(synchronous == 2) // FULL
    }
}
