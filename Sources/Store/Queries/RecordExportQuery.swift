/// Reads one patient's whole record for the export, in one snapshot, handing each row to the writer
/// as it is read (cold path: columns by name).
enum RecordExportQuery {
    static func read<W: RecordExportWriter>(patientID: String, into writer: inout W, in db: Database) throws -> Bool {
        let patient = try db.row("""
            SELECT p.id, s.name AS source, p.record_id, p.mrn, p.name, p.first_name, p.last_name, p.gender, p.birthdate,
                   p.other_fields, p.imported_at, p.updated_at, p.entry_count
            FROM patients p JOIN sources s ON s.id = p.source_id WHERE p.id = ?
            """, [patientID]) { row in
            ExportedPatient(
                id: row.string("id"), sourceName: row.string("source"), recordID: row.string("record_id"),
                medicalRecordNumber: row.stringOrNil("mrn"), name: row.string("name"), firstName: row.stringOrNil("first_name"),
                lastName: row.stringOrNil("last_name"), gender: row.stringOrNil("gender"), birthdate: row.int64OrNil("birthdate"),
                importedAt: row.int64("imported_at"), updatedAt: row.int64("updated_at"), entryCount: row.int64("entry_count"),
                otherFieldsJSON: row.string("other_fields"))
        }
        guard var patient else { return false }
        try db.statement("SELECT system, value FROM patient_identifiers WHERE patient_id = ? ORDER BY system, value")
            .forEach([patientID]) { row in patient.identifiers.append(PatientIdentifier(system: row.string("system"), value: row.string("value"))) }
        writer.patient(patient)
        try db.statement("""
            SELECT \(TimelineWindowQuery.storedEntryColumns), source_entry_id, raw
            FROM entries WHERE patient_id = ? ORDER BY date IS NULL, date, id
            """).forEach([patientID]) { row in
            writer.entry(ExportedEntry(entry: try TimelineWindowQuery.storedEntry(row), sourceEntryID: row.stringOrNil("source_entry_id"),
                                       rawJSON: row.string("raw")))
        }
        try db.statement("SELECT \(TimelinePostQueries.columns) FROM timeline_entries WHERE patient_id = ? ORDER BY created_at, rowid")
            .forEach([patientID]) { row in writer.post(try TimelinePostQueries.post(row)) }
        for resource in try KeptResources.read(patientID: patientID, in: db) { writer.kept(resource) }
        for annotation in try AnnotationQueries.all(patientID: patientID, in: db) { writer.annotation(annotation) }
        for document in try DocumentQueries.read(patientIDs: [patientID], in: db) { writer.document(document) }
        for reading in try ReadingQueries.readings(patientID: patientID, in: db) { writer.reading(reading) }
        return true
    }
}

extension Store {
    /// One patient's whole record handed to `writer`, read in one snapshot; nil when there is no such patient.
    public func exportRecord<W: RecordExportWriter>(patientID: String, into writer: W) async throws(StoreError) -> W? {
        try await read { db in
            var writer = writer
            return try RecordExportQuery.read(patientID: patientID, into: &writer, in: db) ? writer : nil
        }
    }

    public func exportRecordSync<W: RecordExportWriter>(patientID: String, into writer: W) throws(StoreError) -> W? {
        try readSync { db in
            var writer = writer
            return try RecordExportQuery.read(patientID: patientID, into: &writer, in: db) ? writer : nil
        }
    }
}
