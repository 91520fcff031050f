/// The clinical entries of a patient that lie in a time window: an entry is in the window when its date,
/// start or end lies in it, bounds inclusive. Sorted by date, then id.
///
/// Each of the three conditions is a range scan on its own index; the union is then sorted. The cost
/// follows the number of entries in the window, not the size of the record (see the benchmark).
enum TimelineWindowQuery {
    static let sql = """
        SELECT id, type, description, date, time, start_time, end_time, status, value, text_value, units, codes
        FROM entries WHERE pk IN (
            SELECT pk FROM entries WHERE patient_id = ?1 AND date BETWEEN ?2 AND ?3
            UNION SELECT pk FROM entries WHERE patient_id = ?1 AND start_time BETWEEN ?2 AND ?3
            UNION SELECT pk FROM entries WHERE patient_id = ?1 AND end_time BETWEEN ?2 AND ?3
        )
        ORDER BY date, id
        """

    /// For a window that starts at the record's earliest time: one pass over the date index, already in
    /// date order. (An entry without a date has no time at all, so it is never in a window.)
    static let wholeRecordSQL = """
        SELECT id, type, description, date, time, start_time, end_time, status, value, text_value, units, codes
        FROM entries INDEXED BY entries_by_date
        WHERE patient_id = ?1 AND date IS NOT NULL
          AND (date BETWEEN ?2 AND ?3 OR start_time BETWEEN ?2 AND ?3 OR end_time BETWEEN ?2 AND ?3)
        ORDER BY date, id
        """

    static func entries(patientID: String, from start: Int64, to end: Int64, wholeRecord: Bool = false, in db: Database) throws -> [StoredEntry] {
        try db.rows(wholeRecord ? wholeRecordSQL : sql, [patientID, start, end], storedEntry)
    }

    /// Reads the columns of `sql` (and of every query that selects the same list) into a `StoredEntry`.
    static func storedEntry(_ row: Row) throws -> StoredEntry {
        guard let type = EntryType(rawValue: row.string(1)) else {
            throw StoreError.invalidInput("the store holds an entry of unknown type \(row.string(1))")
        }
        return StoredEntry(
            id: row.string(0), type: type,
            description: row.stringOrNil(2), date: row.int64OrNil(3), time: row.int64OrNil(4),
            startTime: row.int64OrNil(5), endTime: row.int64OrNil(6), status: row.stringOrNil(7),
            value: row.doubleOrNil(8), textValue: row.stringOrNil(9), units: row.stringOrNil(10),
            codesJSON: row.string(11))
    }
}

extension Store {
    /// Entries of `patientID` whose date, start or end lies in `start...end` (epoch seconds, inclusive).
    public func entriesSync(patientID: String, from start: Int64, to end: Int64) throws(StoreError) -> [StoredEntry] {
        try readSync { db in try TimelineWindowQuery.entries(patientID: patientID, from: start, to: end, in: db) }
    }
}
