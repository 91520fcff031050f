import HealthRecord
import Store

/// The pack database's schema, frozen: format 1 is exactly this SQL. A reader of format 1 may rely on every
/// table and column here; a change is a new format (`PackManifest.currentFormat`), never an edit of this
/// text. The verifier compares a pack's `sqlite_master` with what this SQL creates, so that a pack with an
/// extra table, view or trigger, or a changed column, is refused.
///
/// - `info`: the manifest's fields (`format`, `version`, `publisher`, `created`, `languages` as a JSON array,
///   `counts.topics`, `counts.vaccines`, `counts.codes`, `counts.strings`).
/// - `topics`: MedlinePlus health topics; `also_called` and `groups` are JSON arrays of strings; `credit`
///   is the agency credit line or NULL. The rowid is the search index's docid.
/// - `topic_related`: each topic's related topics, in the publisher's order (`position`).
/// - `vaccines`: CDC's CVX codes; `groups` is a JSON array of `{"code","name"}`; `nonvaccine` 0 or 1.
/// - `code_topics`: a code (system as `CodeSystem` names it, code as `CodeSystem.normalise` writes it) → a
///   topic, and how (`via`: `cvx-group:03`, `cvx-vaccines` for a vaccine with no group of its own, or the
///   reviewed table's file name). An empty `topic_id` says "reviewed: no topic is right for this code",
///   which also keeps a name match away.
/// - `names`: a topic's title and also-called names as `NameKey` normalises them (lower case, accents
///   removed, punctuation as spaces), with `kind` `title` or `also_called`.
/// - `topic_search`: FTS4 over title, also-called names (joined by "; ") and summary; docid = topics.rowid.
/// - `strings`: the web app's string table, by language and key.
package enum PackSchema {
    /// The format this SQL is.
    package static let format = 1

    package static let statements: [String] = [
        "CREATE TABLE info (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID",
        """
        CREATE TABLE topics (id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL, also_called TEXT NOT NULL, \
        summary TEXT NOT NULL, credit TEXT, language TEXT NOT NULL, url TEXT NOT NULL, groups TEXT NOT NULL)
        """,
        """
        CREATE TABLE topic_related (topic_id TEXT NOT NULL, related_id TEXT NOT NULL, position INTEGER NOT NULL, \
        PRIMARY KEY (topic_id, related_id)) WITHOUT ROWID
        """,
        """
        CREATE TABLE vaccines (code TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, short_name TEXT, note TEXT, \
        status TEXT NOT NULL, nonvaccine INTEGER NOT NULL, groups TEXT NOT NULL) WITHOUT ROWID
        """,
        """
        CREATE TABLE code_topics (system TEXT NOT NULL, code TEXT NOT NULL, topic_id TEXT NOT NULL, via TEXT NOT NULL, \
        PRIMARY KEY (system, code, topic_id)) WITHOUT ROWID
        """,
        """
        CREATE TABLE names (name TEXT NOT NULL, topic_id TEXT NOT NULL, kind TEXT NOT NULL, \
        PRIMARY KEY (name, topic_id)) WITHOUT ROWID
        """,
        """
        CREATE TABLE strings (language TEXT NOT NULL, key TEXT NOT NULL, text TEXT NOT NULL, \
        PRIMARY KEY (language, key)) WITHOUT ROWID
        """,
        """
        CREATE VIRTUAL TABLE topic_search USING fts4(title, also_called, summary, tokenize=unicode61 "remove_diacritics=1")
        """,
    ]

    /// Creates the schema in an empty database, and records the format in `PRAGMA user_version`.
    package static func create(in db: Database) throws(DatabaseError) {
        for statement in statements { try db.execute(statement) }
        try db.execute("PRAGMA user_version = \(format)")
    }

    /// What `sqlite_master` holds once the schema is made: (type, name, table, sql), sorted.
    static let expectedObjects: Result<[SchemaObject], DatabaseError> = Result { () throws(DatabaseError) -> [SchemaObject] in
        let db = try Database(path: ":memory:", key: nil, mode: .readWriteCreate)
        try create(in: db)
        return try objects(in: db)
    }

    struct SchemaObject: Hashable, Comparable, CustomStringConvertible {
        var type: String
        var name: String
        var table: String
        var sql: String?

        static func < (a: SchemaObject, b: SchemaObject) -> Bool { (a.type, a.name) < (b.type, b.name) }
        var description: String { "\(type) \(name)" }
    }

    static func objects(in db: Database) throws(DatabaseError) -> [SchemaObject] {
        do {
            return try db.rows("SELECT type, name, tbl_name, sql FROM sqlite_master") { row in
                SchemaObject(type: row.string(0), name: row.string(1), table: row.string(2), sql: row.stringOrNil(3))
            }.sorted()
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw DatabaseError(code: 1, message: "\(error)")
        }
    }
}
