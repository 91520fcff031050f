import HealthRecord

/// One named, versioned step of the schema. Each runs in its own transaction together with the row that
/// records it, so a crash mid-migration leaves the previous version intact.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    /// The migration edits the schema's stored text (`writable_schema`): the connection that ran it keeps
    /// the schema it parsed before, so the migrator stops after it and the caller opens a new connection.
    let rewritesSchemaText: Bool
    let apply: @Sendable (Database) throws -> Void

    init(version: Int, name: String, rewritesSchemaText: Bool = false, apply: @escaping @Sendable (Database) throws -> Void) {
        self.version = version
        self.name = name
        self.rewritesSchemaText = rewritesSchemaText
        self.apply = apply
    }
}

enum Migrator {
    /// Migrates the database that `open` opens, on a connection of its own, opening a new one after each
    /// migration that rewrote the schema's text; returns the connection, current.
    /// `announce` is told of each migration of a store that had a schema already, before it runs (a new
    /// store's schema is made in a moment).
    static func migrate(opening open: () throws -> Database, migrations: [Migration] = Schema.migrations,
                        announce: ((String) -> Void)? = nil) throws -> Database {
        var db = try open()
        // Whether the store is new is known before the first migration: a migration that rewrites the schema's
        // text hands the rest to a new connection, which finds a version already.
        let tell = try version(of: db) > 0 ? announce : nil
        while try migrate(db, migrations: migrations, announce: tell).mustReopen { db = try open() }
        return db
    }

    /// The newest migration applied; 0 for a new database.
    static func version(of db: Database) throws -> Int {
        try createTable(in: db)
        return try db.scalar("SELECT max(version) FROM schema_migrations", as: Int.self) ?? 0
    }

    private static func createTable(in db: Database) throws {
        try db.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                applied_at INTEGER NOT NULL
            )
            """)
    }

    /// Applies every migration newer than the database, in order, up to and including one that rewrites the
    /// schema's text (`mustReopen`: go on with a new connection). Returns the versions applied.
    @discardableResult
    static func migrate(_ db: Database, migrations: [Migration] = Schema.migrations,
                        announce: ((String) -> Void)? = nil) throws -> (applied: [Int], mustReopen: Bool) {
        let current = try version(of: db)
        if let newest = migrations.last?.version, current > newest {
            throw StoreError.invalidInput("the store has schema version \(current), newer than this hreaderd knows (\(newest)); upgrade hreaderd")
        }
        var applied: [Int] = []
        for migration in migrations where migration.version > current {
            announce?(Self.announcement(migration, newest: migrations.last?.version ?? migration.version))
            try db.transaction { db in
                try migration.apply(db)
                try db.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, strftime('%s','now'))",
                               [migration.version, migration.name])
            }
            applied.append(migration.version)
            if migration.rewritesSchemaText { return (applied, true) }
        }
        return (applied, false)
    }

    static func announcement(_ migration: Migration, newest: Int) -> String {
        "upgrading the store to schema version \(migration.version) of \(newest) (\(migration.name)); "
            + "on a long record this can take a while, once"
    }
}
