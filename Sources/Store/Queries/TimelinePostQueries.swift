import HealthRecord

enum TimelinePostQueries {
    static let columns = "id, patient_id, kind, created_at, data"

    static func post(_ row: Row) throws -> TimelinePost {
        guard let kind = TimelinePost.Kind(rawValue: row.string(2)) else {
            throw StoreError.invalidInput("the store holds a timeline entry of unknown kind \(row.string(2))")
        }
        return TimelinePost(id: row.string(0), patientID: row.string(1), kind: kind, createdAt: row.int64(3), dataJSON: row.string(4))
    }

    static func posts(patientID: String, from start: Int64, to end: Int64, in db: Database) throws -> [TimelinePost] {
        try db.rows("""
            SELECT \(columns) FROM timeline_entries
            WHERE patient_id = ? AND created_at BETWEEN ? AND ? ORDER BY created_at, rowid
            """, [patientID, start, end], post)
    }
}

extension Store {
    /// Stores a post for an existing patient, now, and bumps the patient's revision.
    public func addTimelinePost(patientID: String, kind: TimelinePost.Kind, dataJSON: String,
                                createdAt: Int64 = Store.now()) async throws(StoreError) -> TimelinePost {
        let post = TimelinePost(id: StableID.random("t"), patientID: patientID, kind: kind, createdAt: createdAt, dataJSON: dataJSON)
        return try await write { db in
            try db.execute("UPDATE patients SET revision = revision + 1 WHERE id = ?", [patientID])
            guard db.changes == 1 else { throw StoreError.notFound("patient \(patientID)") }
            try db.execute("INSERT INTO timeline_entries (id, patient_id, kind, created_at, data) VALUES (?, ?, ?, ?, ?)",
                           [post.id, patientID, kind.rawValue, createdAt, dataJSON])
            return post
        }
    }

    /// Removes a post; returns false when there is none with that id.
    public func deleteTimelinePost(id: String) async throws(StoreError) -> Bool {
        try await write { db in
            guard let patientID = try db.scalar("SELECT patient_id FROM timeline_entries WHERE id = ?", [id], as: String.self) else {
                return false
            }
            try db.execute("DELETE FROM timeline_entries WHERE id = ?", [id])
            try db.execute("UPDATE patients SET revision = revision + 1 WHERE id = ?", [patientID])
            return true
        }
    }

    public func timelinePost(id: String) async throws(StoreError) -> TimelinePost? {
        try await read { db in
            try db.row("SELECT \(TimelinePostQueries.columns) FROM timeline_entries WHERE id = ?", [id], TimelinePostQueries.post)
        }
    }
}
