import HealthRecord

/// The clinical entries of a patient that lie in a time window: an entry is in the window when its date,
/// start or end lies in it, bounds inclusive. Sorted by date, then id.
///
/// Every part is a range scan of an index bounded by the window, so the cost follows the number of
/// entries in the window, not the size of the record (see the benchmark). `sql` is the plain statement of
/// the rule, read into `StoredEntry` values; `timeline` is how the timeline reads the same entries fast.
enum TimelineWindowQuery {
    /// What a `StoredEntry` is read from (`storedEntry`).
    static let storedEntryColumns = """
        id, type, description, date, time, start_time, end_time, status, value, text_value, units, codes, \
        ref_low, ref_low_unit, ref_high, ref_high_unit, ref_text, interpretation, source_note
        """
    /// How many columns `storedEntryColumns` lists: a query's own columns after them start here.
    static let storedEntryColumnCount = 19
    /// What the timeline reads: the stored JSON object of each entry, and what the vital-sign groups need.
    /// All of them are in the `entries_by_type` index (migration 15).
    static let timelineColumns = "type, timeline_json, id, date, description, value, units"

    /// The rule as a condition on `entries` (?1 the patient, ?2…?3 the window): index range scans (one a type
    /// by date, one by start, one by end), united. The linked timeline reads by it too.
    static let inWindowCondition = """
        pk IN (
            SELECT pk FROM entries WHERE patient_id = ?1 AND type IN (\(typeList)) AND date BETWEEN ?2 AND ?3
            UNION SELECT pk FROM entries WHERE patient_id = ?1 AND start_time BETWEEN ?2 AND ?3
            UNION SELECT pk FROM entries WHERE patient_id = ?1 AND end_time BETWEEN ?2 AND ?3
        )
        """

    /// The rule as one statement, sorted.
    static let sql = """
        SELECT \(storedEntryColumns)
        FROM entries WHERE \(inWindowCondition)
        ORDER BY date, id
        """

    /// The timeline's read, in two parts. Most entries of a window have their date in it: one range scan of
    /// the covering index by type and date for each type gives them in (date, id) order within their type,
    /// with no table lookup and no sort. A page gathers each type's entries apart (`TimelineRows`), so the
    /// order across types does not matter.
    static let datedInWindowSQL = """
        SELECT \(timelineColumns)
        FROM entries INDEXED BY entries_by_type
        WHERE patient_id = ?1 AND type IN (\(typeList)) AND date BETWEEN ?2 AND ?3
        ORDER BY type, date, id
        """

    /// Every type's stored name, quoted for an `IN` list (names from `EntryType`, never from a user).
    static let typeList = EntryType.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")

    /// The rest: entries whose start or end lies in the window but whose date does not (something that
    /// began before the window and ended in it, say). Their date is then before the window or after it, so
    /// they go before or after the first part, in their own order.
    /// The start and end indexes hold the date too (migration 3), so the few such entries are found in the
    /// indexes alone; only they are looked up in the table.
    static let spanningIntoWindowSQL = """
        SELECT \(timelineColumns)
        FROM entries WHERE \(spanningCondition)
        ORDER BY date, id
        """

    /// Which entries are spanning ones, as a condition on `entries` (?1 the patient, ?2…?3 the window).
    static let spanningCondition = """
        pk IN (
            SELECT pk FROM entries WHERE patient_id = ?1 AND start_time BETWEEN ?2 AND ?3 AND NOT (date BETWEEN ?2 AND ?3)
            UNION SELECT pk FROM entries WHERE patient_id = ?1 AND end_time BETWEEN ?2 AND ?3 AND NOT (date BETWEEN ?2 AND ?3)
        )
        """

    static func entries(patientID: String, from start: Int64, to end: Int64, in db: Database) throws -> [StoredEntry] {
        try db.rows(sql, [patientID, start, end], storedEntry)
    }

    /// The window's entries as the timeline shows them: each type's stored JSON objects, joined, and the
    /// vital signs apart; in (date, id) order, the same entries and order as `sql`.
    static func timeline(patientID: String, from start: Int64, to end: Int64, annotated: Set<String> = [],
                         in db: Database) throws -> (sections: [EntryType: EntryList], vitalSigns: [StoredEntry]) {
        var window = try timelineUpTo(patientID: patientID, from: start, to: end, datedUpTo: end, annotated: annotated, in: db)
        window.rows.append(window.later)
        return (window.rows.sections, window.rows.vitalSigns)
    }

    /// The window's entries but those dated after `datedUpTo` (for a read in slices: the later slices read them,
    /// `datedRows`): the spanning ones dated before the window and the dated ones up to `datedUpTo`, in order,
    /// and apart the spanning ones dated after the window, which go last.
    static func timelineUpTo(patientID: String, from start: Int64, to end: Int64, datedUpTo: Int64, annotated: Set<String>,
                             in db: Database) throws -> (rows: TimelineRows, later: TimelineRows) {
        var window = TimelineRows(annotated: annotated)
        var later = TimelineRows(annotated: annotated)  // spanning entries dated after the window: they go last
        try db.statement(spanningIntoWindowSQL).forEach([patientID, start, end]) { row in
            if let date = row.int64OrNil(3), date > end { try later.add(row) } else { try window.add(row) }
        }
        try db.statement(datedInWindowSQL).forEach([patientID, start, datedUpTo]) { row in try window.add(row) }
        return (window, later)
    }

    /// The entries dated in `start...end`, in (date, id) order: a later slice of a read in slices.
    static func datedRows(patientID: String, from start: Int64, to end: Int64, annotated: Set<String>, in db: Database) throws -> TimelineRows {
        var rows = TimelineRows(annotated: annotated)
        try db.statement(datedInWindowSQL).forEach([patientID, start, end]) { row in try rows.add(row) }
        return rows
    }

    /// Rows of `timelineColumns`, gathered as the timeline needs them.
    struct TimelineRows: Sendable {
        /// Each type's list, by its place in `EntryType.allCases` (an array: no hashing a row).
        private var lists = [EntryList](repeating: EntryList(), count: TimelineWindowQuery.types.count)
        var vitalSigns: [StoredEntry] = []
        /// Ids of the patient's annotated entries; usually none, and then no row's id is looked at.
        var annotated: Set<String> = []
        /// A vital sign's description and units are one of a few: each made a `String` once, not once a row.
        private var descriptions = RepeatedStrings()
        private var units = RepeatedStrings()

        init(annotated: Set<String> = []) { self.annotated = annotated }

        /// The lists that hold entries, by type.
        var sections: [EntryType: EntryList] {
            var sections: [EntryType: EntryList] = [:]
            for (index, list) in lists.enumerated() where !list.isEmpty { sections[TimelineWindowQuery.types[index]] = list }
            return sections
        }

        mutating func add(_ row: Row) throws {
            let index = try typeIndex(row, 0)
            let type = TimelineWindowQuery.types[index]
            if type == .vitalSign {
                vitalSigns.append(StoredEntry(
                    id: row.string(2), type: type, description: row.isNull(4) ? nil : row.withText(4) { descriptions.string($0) },
                    date: row.int64OrNil(3), time: nil, startTime: nil, endTime: nil, status: nil, value: row.doubleOrNil(5),
                    textValue: nil, units: row.isNull(6) ? nil : row.withText(6) { units.string($0) }, codesJSON: "{}"))
            } else {
                var marked: String?
                if !annotated.isEmpty {
                    let id = row.string(2)
                    if annotated.contains(id) { marked = id }
                }
                try lists[index].append(storedJSONOf: row, column: 1, annotatedID: marked)
            }
        }

        mutating func append(_ other: TimelineRows) {
            appendEntries(of: other)
            vitalSigns += other.vitalSigns
        }

        /// Appends the other rows' entries but not their vital signs.
        mutating func appendEntries(of other: TimelineRows) {
            for index in lists.indices { lists[index].append(contentsOf: other.lists[index]) }
        }
    }

    /// Each type's name as stored, in the order of `EntryType.allCases`: a row's type is told by its bytes.
    private static let typeNames: [[UInt8]] = types.map { Array($0.rawValue.utf8) }
    /// `EntryType.allCases`, made once.
    static let types = EntryType.allCases

    /// The place in `EntryType.allCases` of the type in `column` of `row`, told from SQLite's bytes without
    /// making a `String` (this runs for every row of a page).
    static func typeIndex(_ row: Row, _ column: Int) throws(StoreError) -> Int {
        let found = row.withText(column) { text -> Int? in typeNames.firstIndex { sameBytes($0, text) } }
        if let found { return found }
        _ = try entryType(row.string(column))  // throws: the type is unknown
        throw StoreError.invalidInput("the store holds an entry of unknown type")
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
            codesJSON: row.string(11),
            referenceRange: ReferenceRange(low: row.doubleOrNil(12).map { .init(value: $0, unit: row.stringOrNil(13)) },
                                           high: row.doubleOrNil(14).map { .init(value: $0, unit: row.stringOrNil(15)) },
                                           text: row.stringOrNil(16)),
            interpretation: row.stringOrNil(17), sourceNote: row.stringOrNil(18))
    }
}

extension Store {
    /// Entries of `patientID` whose date, start or end lies in `start...end` (epoch seconds, inclusive).
    package func entriesSync(patientID: String, from start: Int64, to end: Int64) throws(StoreError) -> [StoredEntry] {
        try readSync { db in try TimelineWindowQuery.entries(patientID: patientID, from: start, to: end, in: db) }
    }
}
