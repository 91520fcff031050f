import HealthRecord

/// The timeline's window read in parts (`TimelineParts`): the same entries, in the same order, as
/// `TimelineWindowQuery.timeline` and `TimelineSnapshotQuery` read at once.
///
/// A type's entries in the window are, in (date, id) order: those whose start or end only lies in it and
/// that are dated before it, those dated in it, and those dated after it. The first and the last are few:
/// found once for the page with its outline (`TimelineSpanning`), and read with the type's first and last
/// part; the dated ones are read a part at a time along the covering index by type and date (a type's range
/// of its own, however long the record), each part after the last (date, id) of the one before.
enum TimelinePartsQuery {
    /// `?4` the type.
    static let datedPartSQL = """
        SELECT \(TimelineWindowQuery.timelineColumns)
        FROM entries INDEXED BY entries_by_type
        WHERE patient_id = ?1 AND type = ?4 AND date >= ?5 AND date <= ?3 AND (date > ?5 OR id > ?6)
        ORDER BY date, id
        LIMIT ?7
        """

    /// Every type's spanning entries at once; `after`: dated after the window (else before it, or undated).
    static let spanningSQL = """
        SELECT pk, type, date > ?3 AS after
        FROM entries WHERE \(TimelineWindowQuery.spanningCondition)
        ORDER BY type, date, id
        """

    static let spanningRowSQL = "SELECT \(TimelineWindowQuery.timelineColumns) FROM entries WHERE pk = ?1 AND patient_id = ?2"

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
            annotations: annotations,
            spanning: try spanning(patientID: patientID, from: start, to: end, in: db))
    }

    static func spanning(patientID: String, from start: Int64, to end: Int64, in db: Database) throws -> TimelineSpanning {
        var spanning = TimelineSpanning()
        try db.statement(spanningSQL).forEach([patientID, start, end]) { row in
            // A type this build does not know has no array of the page to be shown in: left out, as the parts,
            // read type by type, leave out its dated entries.
            guard let type = EntryType(rawValue: row.string(1)) else { return }
            if row.int64OrNil(2) == 1 {
                spanning.after[type, default: []].append(row.int64(0))
            } else {
                spanning.before[type, default: []].append(row.int64(0))
            }
        }
        return spanning
    }

    /// One part of the window's entries of `type`: up to `limit` dated ones after `after` (nil: the first part,
    /// which begins with those dated before the window), and after the last dated one those dated after the
    /// window. Rows go to `add`.
    static func part(patientID: String, revision: Int64, type: EntryType, from start: Int64, to end: Int64,
                     spanning: TimelineSpanning, after: TimelineCursor?, limit: Int, in db: Database,
                     add: (Row) throws -> Void) throws -> TimelineCursor? {
        try checkRevision(revision, patientID: patientID, in: db)
        // The first part begins with those dated before the window (those dated after it end the last part).
        if after == nil { try addRows(spanning.before[type] ?? [], patientID: patientID, in: db, add: add) }
        var last: TimelineCursor?
        var count = 0
        try db.statement(datedPartSQL).forEach([patientID, start, end, type.rawValue, after?.date ?? start, after?.id ?? "",
                                                Int64(limit)]) { row in
            count += 1
            last = TimelineCursor(date: row.int64(3), id: row.string(2))
            try add(row)
        }
        if count == limit, let last { return last }
        try addRows(spanning.after[type] ?? [], patientID: patientID, in: db, add: add)
        return nil
    }

    private static func addRows(_ pks: [Int64], patientID: String, in db: Database, add: (Row) throws -> Void) throws {
        guard !pks.isEmpty else { return }
        let read = try db.statement(spanningRowSQL)
        for pk in pks {
            // Read at the page's revision (checked above): a row number found with the outline is the same row.
            var found = false
            try read.forEach([pk, patientID]) { row in
                found = true
                try add(row)
            }
            guard found else { throw StoreError.changedDuringRead }
        }
    }
}

extension Store {
    /// What a window of `patientID` at `revision` shows besides its entries and vital signs.
    /// On a bulk reader, as the parts: finding the spanning entries of a long window reads the start and end
    /// indexes through, which would fill a reader's larger page cache for nothing (14 MiB for a million entries).
    public func timelineOutline(patientID: String, revision: Int64, from start: Int64, to end: Int64) async throws(StoreError) -> TimelineOutline {
        try await readInBulk { db in try TimelinePartsQuery.outline(patientID: patientID, revision: revision, from: start, to: end, in: db) }
    }

    /// One part of the window's entries of `type`, each marked when `annotated` holds its id (for the vital
    /// signs, `vitalSigns` holds them and `entries` is empty).
    /// `spanning`: the outline's, of the same window.
    public func timelineEntries(patientID: String, revision: Int64, type: EntryType, from start: Int64, to end: Int64,
                                spanning: TimelineSpanning, after: TimelineCursor?, limit: Int,
                                annotated: Set<String>) async throws(StoreError) -> TimelineEntryPart {
        try await readInBulk { db in
            var rows = TimelineWindowQuery.TimelineRows(annotated: annotated)
            let next = try TimelinePartsQuery.part(patientID: patientID, revision: revision, type: type, from: start, to: end,
                                                   spanning: spanning, after: after, limit: limit, in: db) { row in try rows.add(row) }
            return TimelineEntryPart(entries: rows.sections[type] ?? EntryList(), vitalSigns: rows.vitalSigns, next: next)
        }
    }
}
