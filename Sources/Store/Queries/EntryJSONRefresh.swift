import HealthRecord

/// Keeps every entry's stored timeline JSON in the shape of the encoder the store was opened with.
/// The version that wrote them is a setting; when it differs from the encoder's (a new contract, or a
/// store upgraded from before the column existed), every entry is encoded again, in one transaction.
/// Vital signs have none: the timeline groups them from their columns.
enum EntryJSONRefresh {
    static let settingKey = "entry_json_version"
    static let batchSize = 4_096
    static let announcement = "upgrading the store: every entry's timeline JSON is encoded again for this version of "
        + "hreaderd; on a long record this can take a while, once"

    /// Re-encodes when needed; returns the number of entries encoded.
    @discardableResult
    static func run(_ encoder: any EntryEncoder, in db: Database, announce: ((String) -> Void)? = nil) throws -> Int {
        let stored = try db.scalar("SELECT value FROM settings WHERE key = ?", [settingKey], as: String.self)
        guard stored != String(encoder.version) else { return 0 }
        if let announce, try db.scalar("SELECT EXISTS (SELECT 1 FROM entries)", as: Int.self) == 1 {
            announce(Self.announcement)
        }
        var count = 0
        try db.transaction { db in
            let update = try db.statement("UPDATE entries SET timeline_json = ? WHERE pk = ?")
            // In batches by primary key: memory stays flat however large the store, and no row is read
            // while it is being updated.
            let select = try db.statement("""
                SELECT \(TimelineWindowQuery.storedEntryColumns), pk FROM entries
                WHERE pk > ? AND type != 'vital_sign' ORDER BY pk LIMIT \(batchSize)
                """)
            var after: Int64 = 0
            while true {
                let batch = try select.map([after]) { row in (row.int64(TimelineWindowQuery.storedEntryColumnCount), try TimelineWindowQuery.storedEntry(row)) }
                for (pk, entry) in batch { try update.execute([String(decoding: encoder.encode(entry), as: UTF8.self), pk]) }
                count += batch.count
                guard let last = batch.last, batch.count == batchSize else { break }
                after = last.0
            }
            try db.execute("DELETE FROM settings WHERE key = ?", [settingKey])
            try db.execute("INSERT INTO settings (key, value) VALUES (?, ?)", [settingKey, String(encoder.version)])
        }
        return count
    }
}
