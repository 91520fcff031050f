import HealthRecord

/// The record handed to a doctor (`SharedRecord`): the person's every linked part, read in one snapshot,
/// each fact once by the timeline's rule (`LinkedTimelineQuery.factKey`), the entries the person struck out left
/// out and counted, their notes kept with the entries.
enum SharedRecordQuery {
    /// An entry and its source's JSON (column `TimelineWindowQuery.storedEntryColumnCount`); the id and the date
    /// are columns 0 and 3.
    static let columns = "\(TimelineWindowQuery.storedEntryColumns), raw"

    static func read(patientID: String, in db: Database) throws -> SharedRecord? {
        guard try db.scalar("SELECT 1 FROM patients WHERE id = ?", [patientID], as: Int64.self) != nil else { return nil }
        let (head, members) = try LinkQueries.person(of: patientID, in: db)
        guard var person = try db.row("""
            SELECT p.id, p.name, p.first_name, p.last_name, p.gender, p.birthdate, p.mrn, p.deceased, p.deceased_at
            FROM patients p WHERE p.id = ?
            """, [head], { row in
                SharedRecord.Person(id: row.string("id"), name: row.string("name"),
                                    firstName: row.stringOrNil("first_name"), lastName: row.stringOrNil("last_name"),
                                    gender: row.stringOrNil("gender"), birthdate: row.int64OrNil("birthdate"),
                                    medicalRecordNumber: row.stringOrNil("mrn"),
                                    deceased: row.int64("deceased") != 0, deceasedDate: row.int64OrNil("deceased_at"))
            }) else { return nil }
        var record = SharedRecord(person: person)
        var annotations: [String: Annotation] = [:]
        for member in members {
            for (id, annotation) in try AnnotationQueries.byEntry(patientID: member, in: db) where annotations[id] == nil {
                annotations[id] = annotation
            }
        }
        var identifiers: [PatientIdentifier] = []
        var indexOfFact: [String: Int] = [:]
        for member in members {
            if let source = try db.scalar("SELECT s.name FROM patients p JOIN sources s ON s.id = p.source_id WHERE p.id = ?",
                                          [member], as: String.self), !record.sources.contains(source) {
                record.sources.append(source)
            }
            if person.birthdate == nil {
                person.birthdate = try db.scalar("SELECT birthdate FROM patients WHERE id = ?", [member], as: Int64.self)
            }
            // A death any linked part records is the person's (the first date a part gives).
            if let (deceased, deceasedAt) = try db.row("SELECT deceased, deceased_at FROM patients WHERE id = ?", [member], { row in
                (row.int64("deceased") != 0, row.int64OrNil("deceased_at"))
            }), deceased {
                person.deceased = true
                if person.deceasedDate == nil { person.deceasedDate = deceasedAt }
            }
            try db.statement("SELECT system, value FROM patient_identifiers WHERE patient_id = ? ORDER BY system, value")
                .forEach([member]) { row in
                    let identifier = PatientIdentifier(system: row.string("system"), value: row.string("value"))
                    if !identifiers.contains(identifier) { identifiers.append(identifier) }
                }
            // Dated entries by date, then undated ones: each type's range of the index, merged (no sort of the
            // record in memory).
            let add = { (row: Row) throws -> Void in
                let entry = try TimelineWindowQuery.storedEntry(row)
                let annotation = annotations[entry.id]
                if annotation?.struck == true {
                    record.struck[entry.type, default: 0] += 1
                    return
                }
                let item = SharedRecord.Item(entry: entry, rawJSON: row.string(TimelineWindowQuery.storedEntryColumnCount),
                                             note: annotation?.note)
                guard members.count > 1 else { record.items.append(item); return }
                // A fact two linked sources both hold goes once (the timeline's rule); a note on either stays with it.
                guard let key = LinkedTimelineQuery.factKey(type: entry.type, codes: entry.codesJSON, date: entry.date,
                                                            description: entry.description, value: entry.value) else {
                    record.items.append(item)
                    return
                }
                if let index = indexOfFact[key] {
                    if record.items[index].note == nil { record.items[index].note = item.note }
                    return
                }
                indexOfFact[key] = record.items.count
                record.items.append(item)
            }
            for condition in ["date IS NOT NULL", "date IS NULL"] {
                try EntriesByDateQuery.forEach(columns: Self.columns, condition: condition,
                                               patientID: member, in: db, add)
            }
            record.readings += try ReadingQueries.readings(patientID: member, in: db)
        }
        person.identifiers = identifiers
        record.person = person
        if members.count > 1 {
            record.items.sort { a, b in
                switch (a.entry.date, b.entry.date) {
                case let (x?, y?) where x != y: return x < y
                case (nil, _?): return false
                case (_?, nil): return true
                default: return a.entry.id < b.entry.id
                }
            }
            record.readings.sort { ($0.takenAt, $0.id) < ($1.takenAt, $1.id) }
        }
        return record
    }
}

extension Store {
    /// The record of the person `patientID` belongs to, as it is handed to a doctor; nil when there is no such patient.
    public func sharedRecord(patientID: String) async throws(StoreError) -> SharedRecord? {
        try await read { db in try SharedRecordQuery.read(patientID: patientID, in: db) }
    }

    package func sharedRecordSync(patientID: String) throws(StoreError) -> SharedRecord? {
        try readSync { db in try SharedRecordQuery.read(patientID: patientID, in: db) }
    }
}
