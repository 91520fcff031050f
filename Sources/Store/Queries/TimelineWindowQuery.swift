/// The clinical entries of a patient that lie in a time window: an entry is in the window when its date,
/// start or end lies in it, bounds inclusive. Sorted by date, then id.
///
/// Each of the three conditions is a range scan on its own index; the union is then sorted. The cost
/// follows the number of entries in the window, not the size of the record (see the benchmark).
enum TimelineWindowQuery {
    /// What a `StoredEntry` is read from (`storedEntry`).
    static let storedEntryColumns = "id, type, description, date, time, start_time, end_time, status, value, text_value, units, codes"
    /// What the timeline reads: the stored JSON object of each entry, and what the vital-sign groups need.
    /// All of them are in the `entries_by_date` index (migration 3).
    static let timelineColumns = "type, timeline_json, id, date, description, value, units"

    static func windowSQL(_ columns: String) -> String {
        """
        SELECT \(columns)
        FROM entries WHERE pk IN (
            SELECT pk FROM entries WHERE patient_id = ?1 AND date BETWEEN ?2 AND ?3
            UNION SELECT pk FROM entries WHERE patient_id = ?1 AND start_time BETWEEN ?2 AND ?3
            UNION SELECT pk FROM entries WHERE patient_id = ?1 AND end_time BETWEEN ?2 AND ?3
        )
        ORDER BY date, id
        """
    }

    /// For a window that starts at the record's earliest time: one pass over the date index, already in
    /// date order. (An entry without a date has no time at all, so it is never in a window.)
    static let wholeRecordSQL = """
        SELECT \(timelineColumns)
        FROM entries INDEXED BY entries_by_date
        WHERE patient_id = ?1 AND date IS NOT NULL
          AND (date BETWEEN ?2 AND ?3 OR start_time BETWEEN ?2 AND ?3 OR end_time BETWEEN ?2 AND ?3)
        ORDER BY date, id
        """

    static let sql = windowSQL(storedEntryColumns)
    static let timelineSQL = windowSQL(timelineColumns)

    static func entries(patientID: String, from start: Int64, to end: Int64, in db: Database) throws -> [StoredEntry] {
        try db.rows(sql, [patientID, start, end], storedEntry)
    }

    /// The window's entries as the timeline shows them: each type's stored JSON objects, joined, and the
    /// vital signs apart.
    static func timeline(patientID: String, from start: Int64, to end: Int64, wholeRecord: Bool,
                         in db: Database) throws -> (sections: [EntryType: EntryList], vitalSigns: [StoredEntry]) {
        var sections: [EntryType: EntryList] = [:]
        var vitalSigns: [StoredEntry] = []
        try db.statement(wholeRecord ? wholeRecordSQL : timelineSQL).forEach([patientID, start, end]) { row in
            let type = try entryType(row.string(0))
            if type == .vitalSign {
                vitalSigns.append(StoredEntry(
                    id: row.string(2), type: type, description: row.stringOrNil(4), date: row.int64OrNil(3), time: nil,
                    startTime: nil, endTime: nil, status: nil, value: row.doubleOrNil(5), textValue: nil,
                    units: row.stringOrNil(6), codesJSON: "{}"))
            } else {
                try sections[type, default: EntryList()].append(storedJSONOf: row, column: 1)
            }
        }
        return (sections, vitalSigns)
    }

    static func entryType(_ text: String) throws(StoreError) -> EntryType {
        guard let type = EntryType(rawValue: text) else {
            throw StoreError.invalidInput("the store holds an entry of unknown type \(text)")
        }
        return type
    }

    /// Reads the columns of `sql` (and of every query that selects the same list) into a `StoredEntry`.
    static func storedEntry(_ row: Row) throws -> StoredEntry {
        StoredEntry(
            id: row.string(0), type: try entryType(row.string(1)),
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
