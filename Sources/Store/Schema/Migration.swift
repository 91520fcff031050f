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
    static func migrate(opening open: () throws -> Database, migrations: [Migration] = Schema.migrations) throws -> Database {
        var db = try open()
        while try migrate(db, migrations: migrations).mustReopen { db = try open() }
        return db
    }

    /// Applies every migration newer than the database, in order, up to and including one that rewrites the
    /// schema's text (`mustReopen`: go on with a new connection). Returns the versions applied.
    @discardableResult
    static func migrate(_ db: Database, migrations: [Migration] = Schema.migrations) throws -> (applied: [Int], mustReopen: Bool) {
        try db.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                applied_at INTEGER NOT NULL
            )
            """)
        let current = try db.scalar("SELECT max(version) FROM schema_migrations", as: Int.self) ?? 0
        if let newest = migrations.last?.version, current > newest {
            throw StoreError.invalidInput("the store has schema version \(current), newer than this hreaderd knows (\(newest)); upgrade hreaderd")
        }
        var applied: [Int] = []
        for migration in migrations where migration.version > current {
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
}
