import HealthRecord

/// Conditions, medications and allergies that are not in the window but span it: started before it (start
/// time, else time), not ended before its end, status not closed. The original app dropped these; a
/// chronic condition diagnosed years ago belongs on today's timeline.
///
/// Read from the partial index `entries_ongoing`, which holds only such candidates and every column the
/// query needs, the stored JSON object included (migration 3).
enum OngoingQuery {
    /// The rule as a condition on `entries` (?1 the patient, ?2…?3 the window); the linked timeline reads
    /// by it too.
    static let condition = """
        patient_id = ?1 AND ongoing_end IS NOT NULL AND ongoing_end > ?3
          AND coalesce(start_time, time) < ?2
          AND NOT (coalesce(date BETWEEN ?2 AND ?3, 0) OR coalesce(start_time BETWEEN ?2 AND ?3, 0)
                   OR coalesce(end_time BETWEEN ?2 AND ?3, 0))
        """

    static let sql = """
        SELECT timeline_json, id
        FROM entries
        WHERE \(condition)
        ORDER BY date, id
        """

    static func entries(patientID: String, from start: Int64, to end: Int64, annotated: Set<String> = [],
                        in db: Database) throws -> EntryList {
        var list = EntryList()
        try db.statement(sql).forEach([patientID, start, end]) { row in
            var marked: String?
            if !annotated.isEmpty {
                let id = row.string(1)
                if annotated.contains(id) { marked = id }
            }
            try list.append(storedJSONOf: row, column: 0, annotatedID: marked)
        }
        return list
    }
}
