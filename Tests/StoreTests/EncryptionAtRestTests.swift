import Foundation
import Testing
@testable import Store
import TimelineAPI

@Suite("Encryption at rest")
struct EncryptionAtRestTests {
    @Test("a marker written through the store appears in none of the database, -wal or -shm files")
    func markerIsNotInAnyFile() throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir)
        let marker = "MARKER-\(UUID().uuidString)"
        _ = try store.importRecordSync(sampleRecord(entries: 50, marker: marker))
        // The store stays open: the data is in the WAL, not yet checkpointed into the main file.
        let wal = fileBytes(state.databasePath + "-wal")
        #expect(wal.count > 0, "the write should be in the WAL while the store is open")
        for path in [state.databasePath, state.databasePath + "-wal", state.databasePath + "-shm"] {
            #expect(!contains(fileBytes(path), marker), "marker found in \(path)")
            #expect(!contains(fileBytes(path), "Ada Example"), "patient name found in \(path)")
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
            PRAGMA cipher_page_size = 16384;
            SELECT value FROM settings WHERE key = 'marker';
            """
        let sqlcipher = try run(which("sqlcipher")!, [state.databasePath], stdin: script)
        #expect(sqlcipher.out.contains(marker), "sqlcipher printed: \(sqlcipher.out) \(sqlcipher.err)")

        let wrongKey = String(repeating: "ab", count: 32)
        let wrong = try run(which("sqlcipher")!, [state.databasePath],
                            stdin: "PRAGMA key = \"x'\(wrongKey)'\";\nPRAGMA cipher_page_size = 16384;\nSELECT value FROM settings;\n")
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

    @Test("the connection is keyed with SQLCipher settings: 16 KiB pages, WAL, full sync")
    func connectionSettings() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        let (pageSize, journal, synchronous) = try store.writeSync { db in
            (try db.scalar("PRAGMA cipher_page_size", as: String.self),
             try db.scalar("PRAGMA journal_mode", as: String.self),
             try db.scalar("PRAGMA synchronous", as: Int.self))
        }
        #expect(pageSize == "16384")
        #expect(journal == "wal")
        #expect(synchronous == 2) // FULL
    }

    /// A store made before 16 KiB pages (4 KiB ones): made here with the old page size.
    static func legacyStore(in dir: TemporaryDirectory) throws -> (Store, StateDirectory) {
        let state = StateDirectory(path: dir.file("legacy"))
        var options = Store.Options.timeline
        options.connection.newFilePageSize = 4_096
        let fast = ScryptParameters(logN: 10, r: 8, p: 1)
        let (store, _) = try Store.create(at: state, password: "old", passwordParameters: fast, recoveryParameters: fast, options: options)
        return (store, state)
    }

    @Test("a store with 4 KiB pages (made before 16 KiB) opens as it is: its writer and readers read it, it takes imports, and keeps its page size")
    func legacyPageSize() throws {
        let dir = TemporaryDirectory()
        let (old, state) = try Self.legacyStore(in: dir)
        let patient = try old.importRecordSync(sampleRecord(entries: 300, marker: "before")).patientID
        #expect(try old.readSync { db in try db.pageSize } == 4_096)
        old.close()

        let store = try Store.open(at: state, password: "old", options: .timeline)
        defer { store.close() }
        #expect(try store.writeSync { db in try db.pageSize } == 4_096)
        #expect(try store.readSync { db in try db.pageSize } == 4_096)
        _ = try store.importRecordSync(sampleRecord(id: "rec-2", entries: 200, marker: "after"))
        let counts = try store.readSync { db in
            (try db.scalar("SELECT count(*) FROM entries WHERE patient_id = ?", [patient], as: Int.self),
             try db.scalar("SELECT count(*) FROM entries", as: Int.self),
             try db.scalar("PRAGMA integrity_check", as: String.self))
        }
        #expect(counts.0 == 300 && counts.1 == 500 && counts.2 == "ok")
        let wrong = try StoreKey.random()
        #expect {
            try Store.open(at: state, key: wrong)
        } throws: { error in
            guard case StoreError.keyDoesNotMatchDatabase = error else { return false }
            return true
        }
    }

    @Test("a new store has 16 KiB pages, and its database opens with no other page size")
    func newStorePageSize() throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir)
        store.close()
        let key = try state.keyVault.unlock(password: "correct horse")
        #expect(try Database(path: state.databasePath, key: key).pageSize == Database.pageSize)
        var fourKiB = Database.Configuration()
        fourKiB.newFilePageSize = 4_096
        // Told 4 KiB first, it still finds 16 KiB: the page size is found, not assumed.
        #expect(try Database(path: state.databasePath, key: key, configuration: fourKiB).pageSize == 16_384)
    }
}
