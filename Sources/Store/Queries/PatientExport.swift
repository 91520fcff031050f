/// The whole normalised record of one patient as one JSON document, every entry with its raw source JSON
/// and everything the user posted: the user can always take all their data out.
enum PatientExport {
    static let formatVersion = 1

    static func document(patientID: String, exportedAt: Int64, in db: Database) throws -> [UInt8]? {
        var json = JSONWriter(capacity: 64 * 1024)
        let found = try db.row("""
            SELECT p.id, s.name, p.record_id, p.mrn, p.name, p.first_name, p.last_name, p.gender, p.birthdate,
                   p.other_fields, p.imported_at, p.updated_at, p.entry_count
            FROM patients p JOIN sources s ON s.id = p.source_id WHERE p.id = ?
            """, [patientID]) { row -> Bool in
            json.beginObject()
            json.key("format"); json.string("hreaderd-export")
            json.key("version"); json.int(Int64(formatVersion))
            json.key("exported_at"); json.int(exportedAt)
            json.key("patient"); json.beginObject()
            json.key("id"); json.string(row.string(0))
            json.key("source"); json.string(row.string(1))
            json.key("record_id"); json.string(row.string(2))
            json.key("medical_record_number"); json.string(row.stringOrNil(3))
            json.key("name"); json.string(row.string(4))
            json.key("first_name"); json.string(row.stringOrNil(5))
            json.key("last_name"); json.string(row.stringOrNil(6))
            json.key("gender"); json.string(row.stringOrNil(7))
            json.key("birthdate"); json.int(row.int64OrNil(8))
            json.key("imported_at"); json.int(row.int64(10))
            json.key("updated_at"); json.int(row.int64(11))
            json.key("entry_count"); json.int(row.int64(12))
            json.key("other_fields"); json.raw(row.string(9))
            json.endObject()
            return true
        } ?? false
        guard found else { return nil }

        json.key("entries"); json.beginArray()
        try db.statement("""
            SELECT id, type, description, date, time, start_time, end_time, status, value, text_value, units, codes,
                   source_entry_id, raw
            FROM entries WHERE patient_id = ? ORDER BY date IS NULL, date, id
            """).forEach([patientID]) { row in
            json.beginObject()
            json.key("id"); json.string(row.string(0))
            json.key("type"); json.string(row.string(1))
            json.key("description"); json.string(row.stringOrNil(2))
            json.key("date"); json.int(row.int64OrNil(3))
            json.key("time"); json.int(row.int64OrNil(4))
            json.key("start_time"); json.int(row.int64OrNil(5))
            json.key("end_time"); json.int(row.int64OrNil(6))
            json.key("status"); json.string(row.stringOrNil(7))
            json.key("value"); json.number(row.doubleOrNil(8))
            json.key("text_value"); json.string(row.stringOrNil(9))
            json.key("units"); json.string(row.stringOrNil(10))
            json.key("codes"); json.raw(row.string(11))
            json.key("source_id"); json.string(row.stringOrNil(12))
            json.key("raw"); json.raw(row.string(13))
            json.endObject()
        }
        json.endArray()

        json.key("timeline_entries"); json.beginArray()
        try db.statement("SELECT \(TimelinePostQueries.columns) FROM timeline_entries WHERE patient_id = ? ORDER BY created_at, rowid")
            .forEach([patientID]) { row in
                json.beginObject()
                json.key("id"); json.string(row.string(0))
                json.key("type"); json.string(row.string(2))
                json.key("created_at"); json.int(row.int64(3))
                json.key("data"); json.raw(row.string(4))
                json.endObject()
            }
        json.endArray()
        json.endObject()
        return json.bytes
    }
}

extension Store {
    /// The export document of one patient, or nil when there is no such patient.
    public func exportDocument(patientID: String, exportedAt: Int64 = Store.now()) async throws(StoreError) -> [UInt8]? {
        try await read { db in try PatientExport.document(patientID: patientID, exportedAt: exportedAt, in: db) }
    }

    public func exportDocumentSync(patientID: String, exportedAt: Int64 = Store.now()) throws(StoreError) -> [UInt8]? {
        try readSync { db in try PatientExport.document(patientID: patientID, exportedAt: exportedAt, in: db) }
    }
}
