import HealthRecord

/// The timeline's window read in parts (`TimelineParts`): the same entries, in the same order, as
/// `TimelineWindowQuery.timeline` and `TimelineSnapshotQuery` read at once.
///
/// A type's entries in the window are, in (date, id) order: those whose start or end only lies in it and
/// that are dated before it, those dated in it, and those dated after it. The first and the last are few
/// (`TimelineWindowQuery.spanningIntoWindowSQL`) and are read whole with the first and the last part; the
/// dated ones are read a part at a time along the covering index by type and date (a type's range of its
/// own, however long the record), each part after the last (date, id) of the one before.
enum TimelinePartsQuery {
    /// `?4` the type.
    static let datedPartSQL = """
        SELECT \(TimelineWindowQuery.timelineColumns)
        FROM entries INDEXED BY entries_by_type
        WHERE patient_id = ?1 AND type = ?4 AND date >= ?5 AND date <= ?3 AND (date > ?5 OR id > ?6)
        ORDER BY date, id
        LIMIT ?7
        """

    static let spanningSQL = """
        SELECT \(TimelineWindowQuery.timelineColumns)
        FROM entries WHERE pk IN (
            SELECT pk FROM entries WHERE patient_id = ?1 AND start_time BETWEEN ?2 AND ?3 AND NOT (date BETWEEN ?2 AND ?3)
            UNION SELECT pk FROM entries WHERE patient_id = ?1 AND end_time BETWEEN ?2 AND ?3 AND NOT (date BETWEEN ?2 AND ?3)
        ) AND type = ?4
        ORDER BY date, id
        """

    /// Refuses a read once the patient is no longer at `revision` (or is gone).
    static func checkRevision(_ revision: Int64, patientID: String, in db: Database) throws {
        let current = try db.scalar("SELECT revision FROM patients WHERE id = ?", [patientID], as: Int64.self)
        guard current == revision else { throw StoreError.changedDuringRead }
    }

    static func outline(patientID: String, revision: Int64, from start: Int64, to end: Int64, in db: Database) throws -> TimelineOutline {
        try checkRevision(revision, patientID: patientID, in: db)
        guard let patient = try db.row("SELECT \(Store.patientColumns) WHERE p.id = ?", [patientID], Store.patient) else {
            throw StoreError.changedDuringRead
        }
        let annotations = try AnnotationQueries.any(patientID: patientID, in: db)
            ? try AnnotationQueries.byEntry(patientID: patientID, in: db) : [:]
        return TimelineOutline(
            patient: patient,
            ongoing: try OngoingQuery.entries(patientID: patientID, from: start, to: end, annotated: Set(annotations.keys), in: db),
            posts: try TimelinePostQueries.posts(patientID: patientID, from: start, to: end, in: db),
            readings: try ReadingQueries.readings(patientID: patientID, from: start, to: end, in: db),
            annotations: annotations)
    }

    /// One part of the window's entries of `type`: up to `limit` dated ones after `after` (nil: the first part,
    /// which begins with those dated before the window), and after the last dated one those dated after the
    /// window. Rows go to `add`.
    static func part(patientID: String, revision: Int64, type: EntryType, from start: Int64, to end: Int64,
                     after: TimelineCursor?, limit: Int, in db: Database, add: (Row) throws -> Void) throws -> TimelineCursor? {
        try checkRevision(revision, patientID: patientID, in: db)
        if after == nil {
            // The first part begins with those dated before the window (the others wait for the last part).
            try db.statement(spanningSQL).forEach([patientID, start, end, type.rawValue]) { row in
                if let date = row.int64OrNil(3), date > end { return }
                try add(row)
            }
        }
        var last: TimelineCursor?
        var count = 0
        try db.statement(datedPartSQL).forEach([patientID, start, end, type.rawValue, after?.date ?? start, after?.id ?? "",
                                                Int64(limit)]) { row in
            count += 1
            last = TimelineCursor(date: row.int64(3), id: row.string(2))
            try add(row)
        }
        if count == limit, let last { return last }
        // The last part: those dated after the window.
        try db.statement(spanningSQL).forEach([patientID, start, end, type.rawValue]) { row in
            guard let date = row.int64OrNil(3), date > end else { return }
            try add(row)
        }
        return nil
    }
}

extension Store {
    /// What a window of `patientID` at `revision` shows besides its entries and vital signs.
    public func timelineOutline(patientID: String, revision: Int64, from start: Int64, to end: Int64) async throws(StoreError) -> TimelineOutline {
        try await read { db in try TimelinePartsQuery.outline(patientID: patientID, revision: revision, from: start, to: end, in: db) }
    }

    /// One part of the window's entries of `type`, each marked when `annotated` holds its id (for the vital
    /// signs, `vitalSigns` holds them and `entries` is empty).
    public func timelineEntries(patientID: String, revision: Int64, type: EntryType, from start: Int64, to end: Int64,
                                after: TimelineCursor?, limit: Int, annotated: Set<String>) async throws(StoreError) -> TimelineEntryPart {
        try await readInBulk { db in
            var rows = TimelineWindowQuery.TimelineRows(annotated: annotated)
            let next = try TimelinePartsQuery.part(patientID: patientID, revision: revision, type: type, from: start, to: end,
                                                   after: after, limit: limit, in: db) { row in try rows.add(row) }
            return TimelineEntryPart(entries: rows.sections[type] ?? EntryList(), vitalSigns: rows.vitalSigns, next: next)
        }
    }
}
