/// Conditions, medications and allergies that are not in the window but span it: started before it (start
/// time, else time), not ended before its end, status not closed. The original app dropped these; a
/// chronic condition diagnosed years ago belongs on today's timeline.
enum OngoingQuery {
    static let sql = """
        SELECT id, type, description, date, time, start_time, end_time, status, value, text_value, units, codes
        FROM entries
        WHERE patient_id = ?1 AND ongoing_end IS NOT NULL AND ongoing_end > ?3
          AND coalesce(start_time, time) < ?2
          AND NOT (coalesce(date BETWEEN ?2 AND ?3, 0) OR coalesce(start_time BETWEEN ?2 AND ?3, 0)
                   OR coalesce(end_time BETWEEN ?2 AND ?3, 0))
        ORDER BY date, id
        """

    static func entries(patientID: String, from start: Int64, to end: Int64, in db: Database) throws -> [StoredEntry] {
        try db.rows(sql, [patientID, start, end], TimelineWindowQuery.storedEntry)
    }
}
