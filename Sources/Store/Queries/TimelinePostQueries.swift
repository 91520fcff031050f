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

    /// The patient, the window's entries, the ongoing entries and the posts of the window, in one snapshot.
    /// nil when there is no such patient.
    public func timelineSnapshot(patientID: String, from start: Int64, to end: Int64) async throws(StoreError) -> TimelineSnapshot? {
        try await read { db in
            guard let patient = try db.row("SELECT \(Store.patientColumns) WHERE p.id = ?", [patientID], Store.patient) else {
                return nil
            }
            let window = try TimelineWindowQuery.timeline(patientID: patientID, from: start, to: end, in: db)
            return TimelineSnapshot(
                patient: patient, sections: window.sections, vitalSigns: window.vitalSigns,
                ongoing: try OngoingQuery.entries(patientID: patientID, from: start, to: end, in: db),
                posts: try TimelinePostQueries.posts(patientID: patientID, from: start, to: end, in: db))
        }
    }
}

/// What a timeline request needs before it can pick a window and look in its cache.
public struct TimelineHead: Sendable, Equatable {
    public var patientID: String
    public var revision: Int64
    /// The earliest time of any of the patient's entries or posts (the start of the `all` page).
    public var earliest: Int64?
}

extension Store {
    /// The patient (`patientID`, else the current patient), its revision and, when asked, its earliest
    /// time, in one read. `.notFound` when there is no such patient; nil when there is no patient at all.
    public func timelineHead(patientID: String?, withEarliest: Bool) async throws(StoreError) -> TimelineHead? {
        let key = TimelineHeadMemo.Key(patientID: patientID, withEarliest: withEarliest)
        // Read the count before the store: a commit in between then only makes the memo miss once more.
        let count = commitCount
        let head = try await read { db in try Self.head(patientID: patientID, withEarliest: withEarliest, in: db) }
        if let head, let count { headMemo.remember(head, for: key, commitCount: count) }
        return head
    }

    /// What `timelineHead` last answered, when no transaction has committed since; nil otherwise.
    /// Memory only, never blocks: for answering from a cache on an event loop.
    public func knownTimelineHead(patientID: String?, withEarliest: Bool) -> TimelineHead? {
        guard let count = commitCount else { return nil }
        return headMemo.head(for: TimelineHeadMemo.Key(patientID: patientID, withEarliest: withEarliest), commitCount: count)
    }

    static func head(patientID: String?, withEarliest: Bool, in db: Database) throws -> TimelineHead? {
        guard let id = try patientID ?? CurrentPatient.id(in: db) else { return nil }
        guard let revision = try db.scalar("SELECT revision FROM patients WHERE id = ?", [id], as: Int64.self) else {
            throw StoreError.notFound("patient \(id)")
        }
        guard withEarliest else { return TimelineHead(patientID: id, revision: revision, earliest: nil) }
        let earliest = try db.scalar("""
            SELECT min(m) FROM (
                SELECT min(date) AS m FROM entries WHERE patient_id = ?1
                UNION ALL SELECT min(start_time) FROM entries WHERE patient_id = ?1
                UNION ALL SELECT min(end_time) FROM entries WHERE patient_id = ?1
                UNION ALL SELECT min(created_at) FROM timeline_entries WHERE patient_id = ?1)
            """, [id], as: Int64.self)
        return TimelineHead(patientID: id, revision: revision, earliest: earliest)
    }
}
