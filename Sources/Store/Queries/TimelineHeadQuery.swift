import HealthRecord

/// The head of a timeline request: which patient, its revision, its earliest time. The timeline's read
/// path (TimelineAPI's `TimelineHeadMemo`) remembers it until the next commit (`commitCount`), so that a
/// cached page can be answered from memory.
extension Store {
    /// The patient (`patientID`, else the current patient), its revision and, when asked, its earliest
    /// time, in one read. `.notFound` when there is no such patient; nil when there is no patient at all.
    public func timelineHead(patientID: String?, withEarliest: Bool) async throws(StoreError) -> TimelineHead? {
        try await read { db in try Self.head(patientID: patientID, withEarliest: withEarliest, in: db) }
    }

    static func head(patientID: String?, withEarliest: Bool, in db: Database) throws -> TimelineHead? {
        guard let asked = try patientID ?? CurrentPatient.id(in: db) else { return nil }
        guard try db.scalar("SELECT 1 FROM patients WHERE id = ?", [asked], as: Int64.self) != nil else {
            throw StoreError.notFound("patient \(asked)")
        }
        let person = try LinkQueries.person(of: asked, in: db)
        var revision: Int64 = 0
        var entryCount = 0
        var earliest: Int64?
        for member in person.members {
            if let (memberRevision, count) = try db.row("SELECT revision, entry_count FROM patients WHERE id = ?", [member], { row in
                (row.int64(0), Int(row.int64(1)))
            }) {
                revision += memberRevision
                entryCount += count
            }
            if withEarliest, let first = try earliestTime(of: member, in: db) { earliest = min(earliest ?? first, first) }
        }
        return TimelineHead(patientID: person.head, revision: revision, earliest: earliest, members: person.members, entryCount: entryCount)
    }

    static func earliestTime(of id: String, in db: Database) throws -> Int64? {
        try db.scalar(earliestTimeSQL, [id], as: Int64.self)
    }

    /// The earliest date, start, end, post or reading of a patient (`?1`): each the first row of an index (the
    /// date's, of each type's range of the index by type and date).
    static let earliestTimeSQL = """
            SELECT min(m) FROM (
                \(EntriesByDateQuery.dateBoundsSQL("min"))
                UNION ALL SELECT min(start_time) FROM entries WHERE patient_id = ?1 AND start_time IS NOT NULL
                UNION ALL SELECT min(end_time) FROM entries WHERE patient_id = ?1 AND end_time IS NOT NULL
                UNION ALL SELECT min(created_at) FROM timeline_entries WHERE patient_id = ?1
                UNION ALL SELECT min(taken_at) FROM readings WHERE patient_id = ?1)
            """
}
