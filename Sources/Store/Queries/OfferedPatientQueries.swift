import HealthRecord

/// What a server offers (its people feed) and what the person chose to import (`offered_patients`).
public struct OfferedPatient: Sendable, Equatable {
    public var recordID: String
    /// The feed's title for the record ("Last, First").
    public var title: String?
    /// The person chose to import it (or it is imported because the source imports all).
    public var chosen: Bool
    /// A patient of the store holds this record.
    public var imported: Bool
    /// The person removed this record's patient: a sync leaves it out.
    public var removed: Bool
    public var firstSeenAt: Int64
    public var lastSeenAt: Int64
}

extension Store {
    /// Records what a sync's feed offers and answers which records to download: every record of the feed
    /// when the source imports all; else those the person chose and those already imported. Records a
    /// person removed are never downloaded.
    public func offerPatients(sourceID: Int64, feed: [(recordID: String, title: String?)], importAll: Bool,
                              now: Int64 = Store.now()) async throws(StoreError) -> Set<String> {
        try await write { db in
            let upsert = try db.statement("""
                INSERT OR IGNORE INTO offered_patients (source_id, record_id, title, first_seen_at, last_seen_at, chosen)
                VALUES (?, ?, ?, ?, ?, ?)
                """)
            let seen = try db.statement("UPDATE offered_patients SET title = ?, last_seen_at = ? WHERE source_id = ? AND record_id = ?")
            for entry in feed {
                try upsert.execute([sourceID, entry.recordID, entry.title, now, now, importAll ? 1 : 0])
                try seen.execute([entry.title, now, sourceID, entry.recordID])
            }
            var wanted = Set<String>()
            for entry in feed {
                if try PeopleQueries.isRemoved(sourceID: sourceID, recordID: entry.recordID, in: db) { continue }
                if importAll {
                    wanted.insert(entry.recordID)
                    continue
                }
                let chosen = try db.scalar("SELECT chosen FROM offered_patients WHERE source_id = ? AND record_id = ?",
                                           [sourceID, entry.recordID], as: Int64.self) == 1
                let imported = try db.scalar("SELECT 1 FROM patients WHERE source_id = ? AND record_id = ?",
                                             [sourceID, entry.recordID], as: Int64.self) != nil
                if chosen || imported { wanted.insert(entry.recordID) }
            }
            return wanted
        }
    }

    /// What the source offers, as last seen, by title.
    public func offeredPatients(sourceID: Int64) async throws(StoreError) -> [OfferedPatient] {
        try await read { db in
            try db.rows("""
                SELECT o.record_id, o.title, o.chosen, o.first_seen_at, o.last_seen_at,
                       EXISTS (SELECT 1 FROM patients p WHERE p.source_id = o.source_id AND p.record_id = o.record_id) AS imported,
                       EXISTS (SELECT 1 FROM removed_records r WHERE r.source_id = o.source_id AND r.record_id = o.record_id) AS removed
                FROM offered_patients o WHERE o.source_id = ? ORDER BY o.title, o.record_id
                """, [sourceID]) { row in
                OfferedPatient(recordID: row.string("record_id"), title: row.stringOrNil("title"), chosen: row.int64("chosen") != 0,
                               imported: row.int64("imported") != 0, removed: row.int64("removed") != 0,
                               firstSeenAt: row.int64("first_seen_at"), lastSeenAt: row.int64("last_seen_at"))
            }
        }
    }

    /// Chooses (or stops choosing) offered records for import; false when one of them is not offered.
    /// Choosing a record the person removed earlier is their say: it may come back.
    public func chooseOfferedPatients(sourceID: Int64, recordIDs: [String], chosen: Bool) async throws(StoreError) -> Bool {
        try await write { db in
            for id in recordIDs {
                guard try db.scalar("SELECT 1 FROM offered_patients WHERE source_id = ? AND record_id = ?", [sourceID, id], as: Int64.self) != nil else {
                    throw StoreError.notFound("offered record \(id)")
                }
                try db.execute("UPDATE offered_patients SET chosen = ? WHERE source_id = ? AND record_id = ?", [chosen ? 1 : 0, sourceID, id])
                if chosen { try db.execute("DELETE FROM removed_records WHERE source_id = ? AND record_id = ?", [sourceID, id]) }
            }
            return true
        }
    }

    /// Sets whether the source imports every patient it offers.
    public func setImportAll(sourceID: Int64, _ importAll: Bool) async throws(StoreError) {
        try await write { db in
            guard let text = try db.scalar("SELECT settings FROM sources WHERE id = ?", [sourceID], as: String.self) else {
                throw StoreError.notFound("source \(sourceID)")
            }
            var settings = SourceSettings.decode(text)
            settings.importAll = importAll
            try db.execute("UPDATE sources SET settings = ? WHERE id = ?", [settings.json, sourceID])
        }
    }
}
