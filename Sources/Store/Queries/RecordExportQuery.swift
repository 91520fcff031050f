import HealthRecord

/// Reads one patient's whole record for the export, in one snapshot, handing each row to the writer
/// as it is read (cold path: columns by name).
enum RecordExportQuery {
    static func read<W: RecordExportWriter>(patientID: String, into writer: inout W, in db: Database) throws -> Bool {
        guard try head(patientID: patientID, into: &writer, in: db) != nil else { return false }
        // In date order along the index, as the parts are read: one `ORDER BY date IS NULL, date, id` made SQLite
        // sort every row, sources and all, in memory first (430 MB for a 1,000,000-entry record).
        _ = try entries(patientID: patientID, after: nil, limit: .max, into: &writer, in: db)
        try tail(patientID: patientID, into: &writer, in: db)
        return true
    }

    /// What an exported entry is read from; the id and the date are its columns 0 and 3.
    static let columns = "\(TimelineWindowQuery.storedEntryColumns), source_entry_id, raw"
    /// The dated entries after a (date, id) (`?2` date, `?3` id), in that order: each type's range of the
    /// index by type and date, merged (`EntriesByDateQuery`), no sort.
    static let datedCondition = "date >= ?2 AND (date > ?2 OR id > ?3)"
    /// The undated entries after an id (`?2`), by id.
    static let undatedCondition = "date IS NULL AND id > ?2"

    static func exportedEntry(_ row: Row) throws -> ExportedEntry {
        ExportedEntry(entry: try TimelineWindowQuery.storedEntry(row), sourceEntryID: row.stringOrNil("source_entry_id"),
                      rawJSON: row.string("raw"))
    }

    /// The patient (with identifiers) to the writer; its revision, or nil when there is no such patient.
    static func head<W: RecordExportWriter>(patientID: String, into writer: inout W, in db: Database) throws -> Int64? {
        var revision: Int64 = 0
        let patient = try db.row("""
            SELECT p.id, s.name AS source, p.record_id, p.mrn, p.name, p.first_name, p.last_name, p.gender, p.birthdate,
                   p.other_fields, p.imported_at, p.updated_at, p.entry_count, p.revision, p.deceased, p.deceased_at
            FROM patients p JOIN sources s ON s.id = p.source_id WHERE p.id = ?
            """, [patientID]) { row in
            revision = row.int64("revision")
            return ExportedPatient(
                id: row.string("id"), sourceName: row.string("source"), recordID: row.string("record_id"),
                medicalRecordNumber: row.stringOrNil("mrn"), name: row.string("name"), firstName: row.stringOrNil("first_name"),
                lastName: row.stringOrNil("last_name"), gender: row.stringOrNil("gender"), birthdate: row.int64OrNil("birthdate"),
                importedAt: row.int64("imported_at"), updatedAt: row.int64("updated_at"), entryCount: row.int64("entry_count"),
                otherFieldsJSON: row.string("other_fields"),
                deceased: row.int64("deceased") != 0, deceasedDate: row.int64OrNil("deceased_at"))
        }
        guard var patient else { return nil }
        try db.statement("SELECT system, value FROM patient_identifiers WHERE patient_id = ? ORDER BY system, value")
            .forEach([patientID]) { row in patient.identifiers.append(PatientIdentifier(system: row.string("system"), value: row.string("value"))) }
        writer.patient(patient)
        return revision
    }

    /// Everything after the entries, to the writer.
    static func tail<W: RecordExportWriter>(patientID: String, into writer: inout W, in db: Database) throws {
        try db.statement("SELECT \(TimelinePostQueries.columns) FROM timeline_entries WHERE patient_id = ? ORDER BY created_at, rowid")
            .forEach([patientID]) { row in writer.post(try TimelinePostQueries.post(row)) }
        for resource in try KeptResources.read(patientID: patientID, in: db) { writer.kept(resource) }
        for annotation in try AnnotationQueries.all(patientID: patientID, in: db) { writer.annotation(annotation) }
        for document in try DocumentQueries.read(patientIDs: [patientID], in: db) { writer.document(document) }
        for reading in try ReadingQueries.readings(patientID: patientID, in: db) { writer.reading(reading) }
    }

    /// Entries in the export's order (dated ones by date and id, then undated ones by id), a part at a time:
    /// up to `limit` after `after`; the cursor of the next part, or nil after the last.
    static func entries<W: RecordExportWriter>(patientID: String, after: RecordExportCursor?, limit: Int, into writer: inout W,
                                               in db: Database) throws -> RecordExportCursor? {
        var count = 0
        var last: RecordExportCursor?
        if case .undated = after {} else {
            let (date, id): (Int64, String) = if case let .dated(date, id) = after { (date, id) } else { (.min, "") }
            count = try EntriesByDateQuery.forEach(columns: columns, condition: datedCondition,
                                                   patientID: patientID, arguments: [date, id], limit: limit, in: db) { row in
                last = .dated(row.int64(3), row.string(0))
                writer.entry(try exportedEntry(row))
            }
            if count == limit { return last }
        }
        let afterID = if case let .undated(id) = after { id } else { "" }
        count += try EntriesByDateQuery.forEach(columns: columns, condition: undatedCondition,
                                                patientID: patientID, arguments: [afterID], limit: limit - count, in: db) { row in
            last = .undated(row.string(0))
            writer.entry(try exportedEntry(row))
        }
        return count == limit ? last : nil
    }
}

/// Where the next part of an export's entries begins (`Store.exportEntries`).
public enum RecordExportCursor: Sendable, Equatable {
    case dated(Int64, String)
    case undated(String)
}

extension Store {
    /// The export of a long record in parts, each its own snapshot at the patient's revision (as
    /// `TimelineParts`): the patient, to `writer`, and the revision the parts are read at; nil when there is
    /// no such patient.
    public func exportHead<W: RecordExportWriter>(patientID: String, into writer: W) async throws(StoreError) -> (W, revision: Int64)? {
        try await readInBulk { db in
            var writer = writer
            return try RecordExportQuery.head(patientID: patientID, into: &writer, in: db).map { (writer, $0) }
        }
    }

    /// A part of the export's entries (see `RecordExportQuery.entries`).
    public func exportEntries<W: RecordExportWriter>(patientID: String, revision: Int64, after: RecordExportCursor?, limit: Int,
                                                     into writer: W) async throws(StoreError) -> (W, next: RecordExportCursor?) {
        try await readInBulk { db in
            try TimelinePartsQuery.checkRevision(revision, patientID: patientID, in: db)
            var writer = writer
            let next = try RecordExportQuery.entries(patientID: patientID, after: after, limit: limit, into: &writer, in: db)
            return (writer, next)
        }
    }

    /// What follows the entries in the export.
    public func exportTail<W: RecordExportWriter>(patientID: String, revision: Int64, into writer: W) async throws(StoreError) -> W {
        try await readInBulk { db in
            try TimelinePartsQuery.checkRevision(revision, patientID: patientID, in: db)
            var writer = writer
            try RecordExportQuery.tail(patientID: patientID, into: &writer, in: db)
            return writer
        }
    }

    /// One patient's whole record handed to `writer`, read in one snapshot; nil when there is no such patient.
    public func exportRecord<W: RecordExportWriter>(patientID: String, into writer: W) async throws(StoreError) -> W? {
        try await read { db in
            var writer = writer
            return try RecordExportQuery.read(patientID: patientID, into: &writer, in: db) ? writer : nil
        }
    }

    package func exportRecordSync<W: RecordExportWriter>(patientID: String, into writer: W) throws(StoreError) -> W? {
        try readSync { db in
            var writer = writer
            return try RecordExportQuery.read(patientID: patientID, into: &writer, in: db) ? writer : nil
        }
    }
}
