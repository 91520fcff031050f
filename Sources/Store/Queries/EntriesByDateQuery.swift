import HealthRecord

/// A patient's entries in (date, id) order across every type: each type's range of the covering index by
/// type and date (migration 15) read side by side, a row at a time, and merged. The store keeps no index by
/// date alone: every entry of every import would pay for it (12 % of the dense million's import, measured),
/// for the few reads that go by date across types: the export's parts, the summary's entries. (A sort would
/// hold the record in memory: `ORDER BY date, id` over the summary's types sorted most of a million-entry
/// record, 480 MiB at the daemon's peak.)
enum EntriesByDateQuery {
    /// One type's read: `columns` of the entries of `?1` (the patient) and `type` that meet `condition` (if
    /// any), in (date, id) order along the index (an undated entry first, as SQLite orders NULL).
    static func sql(columns: String, type: EntryType, condition: String?) -> String {
        """
        SELECT \(columns) FROM entries INDEXED BY entries_by_type
        WHERE patient_id = ?1 AND type = '\(type.rawValue)'\(condition.map { " AND \($0)" } ?? "")
        ORDER BY date, id
        """
    }

    /// The earliest (`min`) or the latest (`max`) date of the entries of `?1`: a seek to an end of each type's
    /// range, `?1` bound once.
    static func dateBoundSQL(_ aggregate: String) -> String {
        "SELECT \(aggregate)(m) FROM (\(dateBoundsSQL(aggregate)))"
    }

    /// Each type's `aggregate` date, as the rows of a `UNION ALL` (a part of a larger query).
    static func dateBoundsSQL(_ aggregate: String) -> String {
        TimelineWindowQuery.types.map { type in
            "SELECT \(aggregate)(date) AS m FROM entries WHERE patient_id = ?1 AND type = '\(type.rawValue)'"
        }.joined(separator: "\n    UNION ALL ")
    }

    static let earliestDateSQL = dateBoundSQL("min")
    static let latestDateSQL = dateBoundSQL("max")

    /// Hands `body` the rows of `sql(columns:type:condition:)` of each of `types`, merged in (date, id) order,
    /// up to `limit` of them; how many it handed. `columns` begin with `TimelineWindowQuery.storedEntryColumns`
    /// (the id is column 0, the date column 3). `arguments` are bound from `?2` on.
    @discardableResult
    static func forEach(columns: String, types: [EntryType] = TimelineWindowQuery.types, condition: String? = nil,
                        patientID: String, arguments: [any DatabaseValueConvertible] = [], limit: Int = .max,
                        in db: Database, _ body: (Row) throws -> Void) throws -> Int {
        precondition(columns.hasPrefix(TimelineWindowQuery.storedEntryColumns), "the merge reads the id and the date by position")
        var heads: [Head] = []
        defer { for head in heads { head.row.statement.reset() } }
        // Each type once: a type's statement is the connection's cached one, and two reads of it at once would be one.
        var seen: Set<EntryType> = []
        for type in types where seen.insert(type).inserted {
            let statement = try db.statement(sql(columns: columns, type: type, condition: condition))
            try statement.bind([patientID] + arguments)
            if let row = try statement.nextRow() { heads.append(Head(row)) }
        }
        var count = 0
        while count < limit, !heads.isEmpty {
            var first = 0
            for index in heads.indices.dropFirst() where heads[index].precedes(heads[first]) { first = index }
            try body(heads[first].row)
            count += 1
            if let row = try heads[first].row.statement.nextRow() {
                heads[first] = Head(row)
            } else {
                heads.remove(at: first)
            }
        }
        return count
    }

    /// A type's current row and its place in the order.
    private struct Head {
        let row: Row
        let date: Int64?

        init(_ row: Row) {
            self.row = row
            date = row.int64OrNil(3)
        }

        func precedes(_ other: Head) -> Bool {
            switch (date, other.date) {
            case let (a?, b?) where a != b: return a < b
            case (nil, _?): return true
            case (_?, nil): return false
            default:
                // The same date (rare): by id, as SQLite compares text (bytes, then length). Each row stays valid
                // until its own statement steps.
                return row.withText(0) { id in other.row.withText(0) { id.lexicographicallyPrecedes($0) } }
            }
        }
    }
}
