import Foundation
import Synchronization
import Testing
import HealthRecord
@testable import Store
import TimelineAPI

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
        #expect(try Migrator.migrate(db).applied.isEmpty)
    }

    @Test("migration 3 only adds the column (SQL alone); the store's encoder then gives every entry its timeline JSON")
    func timelineJSONBackfill() throws {
        let dir = TemporaryDirectory()
        let key = try StoreKey.random()
        var db = try Database(path: dir.file("v2.db"), key: key, mode: .readWriteCreate)
        try Migrator.migrate(db, migrations: Array(Schema.migrations.prefix(2)))
        try db.execute("INSERT INTO patients (id, source_id, record_id, name, imported_at, updated_at) VALUES ('p1', 1, 'r1', 'Ada', 0, 0)")
        try db.execute("""
            INSERT INTO entries (id, patient_id, type, description, date, time, start_time, end_time, status, value,
                                 text_value, units, codes, raw, content_hash)
            VALUES ('e1', 'p1', 'result', 'Cholesterol "total"', 100, 100, NULL, NULL, 'final', 179, NULL, 'mg/dL',
                    '{"LOINC":["2093-3"]}', '{}', x'00'),
                   ('e2', 'p1', 'condition', 'Asthma', 50, NULL, 50, NULL, NULL, NULL, NULL, NULL, '{}', '{}', x'00')
            """)
        #expect(try Migrator.migrate(db, migrations: Array(Schema.migrations.prefix(3))).applied == [3])
        #expect(try db.scalar("SELECT count(*) FROM entries WHERE timeline_json IS NULL", as: Int.self) == 2)
        // The encoder reads the columns of today's schema: the later migrations first (on a new connection
        // after one that rewrites the schema's text).
        while try Migrator.migrate(db).mustReopen { db = try Database(path: dir.file("v2.db"), key: key) }
        #expect(try EntryJSONRefresh.run(TimelineEntryJSON(), in: db) == 2)
        let rows = try db.rows("SELECT id, timeline_json FROM entries ORDER BY id") { ($0.string(0), $0.string(1)) }
        #expect(rows.map(\.0) == ["e1", "e2"])
        #expect(rows[0].1 == #"{"id":"e1","description":"Cholesterol \"total\"","date":100,"measurement":{"value":179,"unit":"mg/dL"},"type":"result","start_date":null,"end_date":null,"status":"final","codes":{"LOINC":["2093-3"]}}"#)
        #expect(rows[1].1 == #"{"id":"e2","description":"Asthma","date":50,"measurement":{"value":null,"unit":null},"type":"condition","start_date":50,"end_date":null,"status":null,"codes":{}}"#)
    }

    @Test("a new encoder version re-encodes every entry once when the store opens; the same version, none")
    func encoderVersionChange() throws {
        struct Tagged: EntryEncoder {
            let version: Int
            func encode(_ entry: StoredEntry) -> [UInt8] { Array("{\"v\":\(version),\"id\":\"\(entry.id)\"}".utf8) }
        }
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir)
        let summary = try store.importRecordSync(.record(entries: .numbered(5)))
        store.close()
        func stored(_ store: Store) throws -> [String] {
            try store.readSync { db in try db.rows("SELECT timeline_json FROM entries ORDER BY id") { $0.string(0) } }
        }
        let told = Mutex<[String]>([])
        var options = Store.Options(entryEncoder: Tagged(version: 99))
        options.onUpgrade = { step in told.withLock { $0.append(step) } }
        let v99 = try Store.open(at: state, password: "correct horse", options: options)
        #expect(try stored(v99) == (0..<5).map { "{\"v\":99,\"id\":\"e_\($0)\"}" })
        // The person starting it hears of the step before it runs: on a long record it takes a while.
        #expect(told.withLock { $0 } == [EntryJSONRefresh.announcement])
        #expect(try v99.readSync { db in try db.scalar("SELECT value FROM settings WHERE key = 'entry_json_version'", as: String.self) } == "99")
        // The same version again: nothing is re-encoded (a marker written by hand survives).
        try v99.writeSync { db in try db.execute("UPDATE entries SET timeline_json = '{}' WHERE id = 'e_0'") }
        v99.close()
        let again = try Store.open(at: state, password: "correct horse", options: options)
        #expect(try stored(again).first == "{}")
        #expect(told.withLock { $0.count } == 1)
        #expect(try again.entriesSync(patientID: summary.patientID, from: 0, to: 10_000_000).count == 5)
        again.close()
    }

    @Test("each migration of an existing store is told before it runs; a new store's are not")
    func upgradeAnnounced() throws {
        let dir = TemporaryDirectory()
        let key = try StoreKey.random()
        // Version 9: the next migration (10) rewrites the schema's text, and the rest run on a new connection.
        let path = dir.file("v9.db")
        do {
            let old = try Migrator.migrate(opening: { try Database(path: path, key: key, mode: .readWriteCreate) },
                                           migrations: Array(Schema.migrations.prefix(9)), announce: { Issue.record("told: \($0)") })
            #expect(try Migrator.version(of: old) == 9)
        }
        #expect(Schema.migrations[9].rewritesSchemaText)
        var told: [String] = []
        _ = try Migrator.migrate(opening: { try Database(path: path, key: key, mode: .readWrite) }, announce: { told.append($0) })
        let later = Array(Schema.migrations.dropFirst(9))
        #expect(!later.isEmpty)
        #expect(told == later.map { Migrator.announcement($0, newest: Schema.migrations.last?.version ?? 0) })
        #expect(told.last?.contains("schema version \(Schema.migrations.count) of \(Schema.migrations.count)") == true)

        var toldNew: [String] = []
        _ = try Migrator.migrate(opening: { try Database(path: dir.file("new.db"), key: key, mode: .readWriteCreate) },
                                 announce: { toldNew.append($0) })
        #expect(toldNew.isEmpty)
    }

    @Test("a store opened without an encoder reads, but refuses to import")
    func noEncoderNoImport() throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir)
        store.close()
        let plain = try Store.open(at: state, password: "correct horse")
        #expect(throws: StoreError.self) { try plain.importRecordSync(.record(entries: .numbered(3))) }
        #expect(try plain.patientsSync().isEmpty)
        plain.close()
    }

    @Test("migration 10 widens the sources' kind check in place: an RHEx store keeps its sources and patients, and takes FHIR sources")
    func fhirKindWidened() throws {
        let dir = TemporaryDirectory()
        let key = try StoreKey.random()
        let path = dir.file("v9.db")
        let old = try Database(path: path, key: key, mode: .readWriteCreate)
        try Migrator.migrate(old, migrations: Array(Schema.migrations.prefix(9)))
        try old.execute("""
            INSERT INTO sources (name, kind, url, settings, client_secret, authorization_code, created_at)
                VALUES ('clinic', 'rhex', 'https://rhex.example.org', '{"client_id":"c"}', 's3cret', 'code1', 0);
            INSERT INTO patients (id, source_id, record_id, name, imported_at, updated_at) VALUES ('p1', 2, 'r1', 'Ada', 0, 0);
            """)
        #expect(throws: DatabaseError.self) { try old.execute("INSERT INTO sources (name, kind, created_at) VALUES ('x', 'fhir', 0)") }

        var connections = 0
        let db = try Migrator.migrate(opening: {
            connections += 1
            return connections == 1 ? old : try Database(path: path, key: key, mode: .readWrite)
        })
        // The connection that rewrote the schema's text is not used after it.
        #expect(connections == 2)
        #expect(try db.scalar("PRAGMA integrity_check", as: String.self) == "ok")
        try db.execute("INSERT INTO sources (name, kind, url, created_at, pkce_verifier) VALUES ('portal', 'fhir', 'https://fhir.example.org', 0, 'v')")
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO sources (name, kind, created_at) VALUES ('y', 'ftp', 0)") }
        #expect(try db.scalar("SELECT client_secret || authorization_code FROM sources WHERE name = 'clinic'", as: String.self) == "s3cret" + "code1")
        #expect(try db.scalar("SELECT count(*) FROM patients WHERE source_id = 2", as: Int.self) == 1)
        // A later change to the table, on the new connection, keeps its text whole.
        try db.execute("ALTER TABLE sources ADD COLUMN later TEXT")
        #expect(try db.scalar("PRAGMA integrity_check", as: String.self) == "ok")
        #expect(try db.scalar("SELECT count(*) FROM sources WHERE later IS NULL", as: Int.self) == 3)
    }

    /// The schema as SQLite keeps it: every table, index, view and trigger with its SQL, by name.
    private static func schema(_ db: Database) throws -> [String] {
        try db.rows("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name", []) { row in
            [row.string(0), row.string(1), row.string(2), row.stringOrNil(3) ?? "-"].joined(separator: " | ")
        }
    }

    /// The schema of a store made new, by every migration on an empty database.
    private static func newSchema() throws -> [String] {
        let dir = TemporaryDirectory()
        let key = try StoreKey.random()
        return try schema(try Migrator.migrate(opening: { try Database(path: dir.file("new.db"), key: key, mode: .readWriteCreate) }))
    }

    /// A patient with two entries (one annotated), a post and a document section: a row of every kind the
    /// search index holds. For a database of version 6 or later.
    private static let someOfEverything = """
        INSERT INTO patients (id, source_id, record_id, name, imported_at, updated_at) VALUES ('p1', 1, 'r1', 'Ada', 0, 0);
        INSERT INTO entries (id, patient_id, type, description, date, codes, raw, content_hash)
        VALUES ('e1', 'p1', 'result', 'Serum potassium', 100, '{"LOINC":["2823-3"]}', '{}', x'00'),
               ('e2', 'p1', 'condition', 'Asthma', 50, '{}', '{}', x'00');
        INSERT INTO annotations (patient_id, entry_id, note, created_at, updated_at) VALUES ('p1', 'e2', 'worse in winter', 0, 0);
        INSERT INTO timeline_entries (id, patient_id, kind, created_at, data) VALUES ('t1', 'p1', 'levels', 5, '{"pain":"throbbing"}');
        INSERT INTO documents (patient_id, id, title, time, format, imported_at) VALUES ('p1', 'd1', 'CCD', 70, 'ccda', 0);
        INSERT INTO document_sections (patient_id, document_id, ordinal, title, code, text, entries)
        VALUES ('p1', 'd1', 0, 'Family history', NULL, 'Father | myocardial infarction', 0);
        """

    /// Migrates the database at `path` (its first connection `first`) to the newest version, opening a new
    /// connection after a migration that rewrote the schema's text, as the store does.
    private static func upgrade(_ first: Database, path: String, key: StoreKey, migrations: [Migration] = Schema.migrations) throws -> Database {
        var opened = 0
        return try Migrator.migrate(opening: {
            opened += 1
            return opened == 1 ? first : try Database(path: path, key: key, mode: .readWrite)
        }, migrations: migrations)
    }

    /// What an upgraded store's search index holds: FTS4's own check of the index against the text the view
    /// gives, and a word of every kind of row found.
    private static func checkSearchIndex(_ db: Database) throws {
        try db.execute("INSERT INTO search (search) VALUES ('integrity-check')")
        #expect(try db.scalar("SELECT count(*) FROM search_rows", as: Int.self) == 4)
        let found = try db.rows("SELECT docid FROM search WHERE search MATCH 'potassium OR winter OR throbbing OR myocardial' ORDER BY docid", []) {
            $0.int64(0)
        }
        #expect(found == [1, 2, 1 << 40 | 1, 1 << 40 | 2])
    }

    @Test("a store of version 6 (before search) upgrades to the schema of a new store, every row in the search index")
    func upgradeFromVersion6() throws {
        let dir = TemporaryDirectory()
        let key = try StoreKey.random()
        let path = dir.file("v6.db")
        let old = try Database(path: path, key: key, mode: .readWriteCreate)
        try Migrator.migrate(old, migrations: Array(Schema.migrations.prefix(6)))
        try old.execute(Self.someOfEverything)
        let db = try Self.upgrade(old, path: path, key: key)
        #expect(try Self.schema(db) == (try Self.newSchema()))
        try Self.checkSearchIndex(db)
    }

    @Test("a store of version 12, its search index in the shape versions 11 and 12 had, upgrades to the schema of a new store")
    func upgradeFromVersion12() throws {
        let dir = TemporaryDirectory()
        let key = try StoreKey.random()
        let path = dir.file("v12.db")
        let old = try Database(path: path, key: key, mode: .readWriteCreate)
        try Migrator.migrate(old, migrations: Array(Schema.migrations.prefix(6)))
        try old.execute(Self.someOfEverything)
        // The index as versions 11 and 12 had it (SearchIndexSchema before f47b046): its own copy of the text and
        // its filter columns, docids by parity (an entry's pk × 2, a post's or section's `search_docs` id × 2 + 1),
        // triggers that queue a changed row. Its SQL as it was, then rows as it wrote them; today's migrations 8
        // to 12 (11 is empty now) after it.
        try old.execute("""
            CREATE VIRTUAL TABLE search USING fts4(
                body, patient_id, type, date,
                notindexed=patient_id, notindexed=type, notindexed=date,
                tokenize=unicode61 "remove_diacritics=1", matchinfo=fts3
            );
            CREATE TABLE search_docs (
                id INTEGER PRIMARY KEY,
                kind TEXT NOT NULL,
                patient_id TEXT NOT NULL,
                ref TEXT NOT NULL,
                UNIQUE (kind, patient_id, ref)
            );
            CREATE TABLE search_queue (docid INTEGER PRIMARY KEY);
            CREATE TRIGGER search_entry_delete AFTER DELETE ON entries BEGIN
                INSERT OR IGNORE INTO search_queue (docid) VALUES (OLD.pk * 2);
            END;
            CREATE TRIGGER search_annotation_insert AFTER INSERT ON annotations BEGIN
                INSERT OR IGNORE INTO search_queue (docid)
                    SELECT pk * 2 FROM entries WHERE patient_id = NEW.patient_id AND id = NEW.entry_id;
            END;
            CREATE TRIGGER search_annotation_update AFTER UPDATE ON annotations BEGIN
                INSERT OR IGNORE INTO search_queue (docid)
                    SELECT pk * 2 FROM entries WHERE patient_id = NEW.patient_id AND id = NEW.entry_id;
            END;
            CREATE TRIGGER search_annotation_delete AFTER DELETE ON annotations BEGIN
                INSERT OR IGNORE INTO search_queue (docid)
                    SELECT pk * 2 FROM entries WHERE patient_id = OLD.patient_id AND id = OLD.entry_id;
            END;
            CREATE TRIGGER search_post_insert AFTER INSERT ON timeline_entries BEGIN
                INSERT OR IGNORE INTO search_docs (kind, patient_id, ref) VALUES ('post', NEW.patient_id, NEW.id);
                INSERT OR IGNORE INTO search_queue (docid)
                    SELECT id * 2 + 1 FROM search_docs WHERE kind = 'post' AND patient_id = NEW.patient_id AND ref = NEW.id;
            END;
            CREATE TRIGGER search_post_delete AFTER DELETE ON timeline_entries BEGIN
                INSERT OR IGNORE INTO search_queue (docid)
                    SELECT id * 2 + 1 FROM search_docs WHERE kind = 'post' AND patient_id = OLD.patient_id AND ref = OLD.id;
                DELETE FROM search_docs WHERE kind = 'post' AND patient_id = OLD.patient_id AND ref = OLD.id;
            END;
            CREATE TRIGGER search_section_insert AFTER INSERT ON document_sections BEGIN
                INSERT OR IGNORE INTO search_docs (kind, patient_id, ref) VALUES ('section', NEW.patient_id, NEW.document_id || '#' || NEW.ordinal);
                INSERT OR IGNORE INTO search_queue (docid)
                    SELECT id * 2 + 1 FROM search_docs WHERE kind = 'section' AND patient_id = NEW.patient_id
                                                         AND ref = NEW.document_id || '#' || NEW.ordinal;
            END;
            CREATE TRIGGER search_section_delete AFTER DELETE ON document_sections BEGIN
                INSERT OR IGNORE INTO search_queue (docid)
                    SELECT id * 2 + 1 FROM search_docs WHERE kind = 'section' AND patient_id = OLD.patient_id
                                                         AND ref = OLD.document_id || '#' || OLD.ordinal;
                DELETE FROM search_docs WHERE kind = 'section' AND patient_id = OLD.patient_id AND ref = OLD.document_id || '#' || OLD.ordinal;
            END;

            INSERT INTO search_docs (kind, patient_id, ref) SELECT 'post', patient_id, id FROM timeline_entries;
            INSERT INTO search_docs (kind, patient_id, ref) SELECT 'section', patient_id, document_id || '#' || ordinal FROM document_sections;
            INSERT INTO search (docid, body, patient_id, type, date)
                SELECT e.pk * 2, e.description || coalesce(' ' || a.note, ''), e.patient_id, e.type, e.date
                FROM entries e LEFT JOIN annotations a ON a.patient_id = e.patient_id AND a.entry_id = e.id;
            INSERT INTO search (docid, body, patient_id, type, date) SELECT d.id * 2 + 1, 'pain throbbing', 'p1', 'levels', 5 FROM search_docs d WHERE kind = 'post';
            INSERT INTO search (docid, body, patient_id, type, date)
                SELECT d.id * 2 + 1, 'Family history Father myocardial infarction', 'p1', 'document', 70 FROM search_docs d WHERE kind = 'section';
            INSERT INTO schema_migrations (version, name, applied_at) VALUES (7, 'full-text search index', 0);
            """)
        let db = try Self.upgrade(old, path: path, key: key, migrations: Array(Schema.migrations.prefix(12)))
        #expect(try db.scalar("SELECT max(version) FROM schema_migrations", as: Int.self) == 12)
        #expect(try Self.schema(db) != (try Self.newSchema()), "the index in its old shape")
        let upgraded = try Self.upgrade(db, path: path, key: key)
        #expect(try Self.schema(upgraded) == (try Self.newSchema()))
        try Self.checkSearchIndex(upgraded)
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
        let key = try StoreKey.random()
        let db = try Migrator.migrate(opening: { try Database(path: dir.file("n.db"), key: key, mode: .readWriteCreate) })
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
