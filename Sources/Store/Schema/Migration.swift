/// One named, versioned step of the schema. Each runs in its own transaction together with the row that
/// records it, so a crash mid-migration leaves the previous version intact.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    let apply: @Sendable (Database) throws -> Void

    init(version: Int, name: String, apply: @escaping @Sendable (Database) throws -> Void) {
        self.version = version
        self.name = name
        self.apply = apply
    }
}

enum Migrator {
    /// Applies every migration newer than the database, in order. Returns the versions applied.
    @discardableResult
    static func migrate(_ db: Database, migrations: [Migration] = Schema.migrations) throws -> [Int] {
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
        }
        return applied
    }
}
