import HealthRecord

/// Annotations (`annotations`): written by the person, read with the timeline, the export and on their own.
enum AnnotationQueries {
    static let columns = """
        a.entry_id, a.note, a.struck, a.reason, a.quantity, a.dose, a.directions, a.prescriber, a.created_at, a.updated_at,
        a.entry_type, a.entry_description, a.entry_date,
        NOT EXISTS (SELECT 1 FROM entries e WHERE e.patient_id = a.patient_id AND e.id = a.entry_id) AS orphaned
        FROM annotations a
        """

    static func annotation(_ row: Row) -> Annotation {
        let medication = Annotation.Medication(quantity: row.stringOrNil("quantity"), dose: row.stringOrNil("dose"),
                                               directions: row.stringOrNil("directions"), prescriber: row.stringOrNil("prescriber"))
        var annotation = Annotation(entryID: row.string("entry_id"), note: row.stringOrNil("note"), struck: row.int64("struck") != 0,
                                    reason: row.stringOrNil("reason"), medication: medication.isEmpty ? nil : medication,
                                    createdAt: row.int64("created_at"), updatedAt: row.int64("updated_at"), orphaned: row.int64("orphaned") != 0)
        annotation.entryType = row.stringOrNil("entry_type").flatMap(EntryType.init(rawValue:))
        annotation.entryDescription = row.stringOrNil("entry_description")
        annotation.entryDate = row.int64OrNil("entry_date")
        return annotation
    }

    /// Every annotation of a patient, by entry id.
    static func byEntry(patientID: String, in db: Database) throws -> [String: Annotation] {
        var out: [String: Annotation] = [:]
        try db.statement("SELECT \(columns) WHERE a.patient_id = ?").forEach([patientID]) { row in
            let annotation = annotation(row)
            out[annotation.entryID] = annotation
        }
        return out
    }

    /// Which patient of the person that `patientID` belongs to holds the entry (or its annotation); the
    /// patient itself when none does (the caller then finds neither).
    static func owner(of entryID: String, person patientID: String, in db: Database) throws -> String {
        let members = try LinkQueries.person(of: patientID, in: db).members
        guard members.count > 1 else { return patientID }
        for member in [patientID] + members where
            try db.scalar("SELECT 1 FROM entries WHERE patient_id = ? AND id = ?", [member, entryID], as: Int64.self) != nil
            || db.scalar("SELECT 1 FROM annotations WHERE patient_id = ? AND entry_id = ?", [member, entryID], as: Int64.self) != nil {
            return member
        }
        return patientID
    }

    /// Every annotation of a patient, orphaned ones included, by entry id.
    static func all(patientID: String, in db: Database) throws -> [Annotation] {
        try db.rows("SELECT \(columns) WHERE a.patient_id = ? ORDER BY a.entry_id", [patientID], annotation)
    }

    /// Whether the patient has any annotation at all: the timeline's read skips the work when not.
    static func any(patientID: String, in db: Database) throws -> Bool {
        try db.scalar("SELECT 1 FROM annotations WHERE patient_id = ? LIMIT 1", [patientID], as: Int64.self) != nil
    }
}

extension Store {
    /// Why an annotation was not written.
    public enum AnnotationTarget: Error, Sendable, Equatable {
        case unknownPatient
        case unknownEntry
    }

    /// Writes (replaces) the annotation of an entry of a patient. The entry must be the patient's: an
    /// annotation is never made for an id the record does not hold; one that exists already (its entry
    /// since removed by the source) may still be changed. Returns the annotation, or why nothing was written.
    public func setAnnotation(_ annotation: Annotation, patientID: String, now: Int64 = Store.now()) async throws(StoreError)
        -> Result<Annotation, AnnotationTarget> {
        try await write { db in
            guard try db.scalar("SELECT 1 FROM patients WHERE id = ?", [patientID], as: Int64.self) != nil else {
                return .failure(.unknownPatient)
            }
            // A linked person's timeline shows its patients' entries under one id: the annotation goes to
            // the patient whose entry it is.
            let patientID = try AnnotationQueries.owner(of: annotation.entryID, person: patientID, in: db)
            let exists = try db.scalar("SELECT created_at FROM annotations WHERE patient_id = ? AND entry_id = ?",
                                       [patientID, annotation.entryID], as: Int64.self)
            let entry = try db.row("SELECT type, description, date FROM entries WHERE patient_id = ? AND id = ?",
                                   [patientID, annotation.entryID]) { row in
                (row.string("type"), row.stringOrNil("description"), row.int64OrNil("date"))
            }
            guard exists != nil || entry != nil else { return .failure(.unknownEntry) }
            let medication = annotation.medication
            // The entry's type, description and date are kept from the last write while it still exists.
            try db.execute("""
                INSERT OR REPLACE INTO annotations (patient_id, entry_id, note, struck, reason, quantity, dose, directions, prescriber,
                    entry_type, entry_description, entry_date, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?,
                    coalesce(?, (SELECT entry_type FROM annotations WHERE patient_id = ?1 AND entry_id = ?2)),
                    coalesce(?, (SELECT entry_description FROM annotations WHERE patient_id = ?1 AND entry_id = ?2)),
                    coalesce(?, (SELECT entry_date FROM annotations WHERE patient_id = ?1 AND entry_id = ?2)), ?, ?)
                """, [patientID, annotation.entryID, annotation.note, annotation.struck ? 1 : 0, annotation.reason,
                      medication?.quantity, medication?.dose, medication?.directions, medication?.prescriber,
                      entry?.0, entry?.1, entry?.2, exists ?? now, now])
            // The timeline carries annotations: its cached pages are keyed by the revision.
            try db.execute("UPDATE patients SET revision = revision + 1 WHERE id = ?", [patientID])
            guard let stored = try db.row("SELECT \(AnnotationQueries.columns) WHERE a.patient_id = ? AND a.entry_id = ?",
                                          [patientID, annotation.entryID], AnnotationQueries.annotation) else {
                throw StoreError.notFound("annotation \(annotation.entryID)")
            }
            return .success(stored)
        }
    }

    /// Whether the person `patientID` belongs to holds an entry with this id.
    public func hasEntry(patientID: String, entryID: String) async throws(StoreError) -> Bool {
        try await read { db in
            let owner = try AnnotationQueries.owner(of: entryID, person: patientID, in: db)
            return try db.scalar("SELECT 1 FROM entries WHERE patient_id = ? AND id = ?", [owner, entryID], as: Int64.self) != nil
        }
    }

    public func annotation(patientID: String, entryID: String) async throws(StoreError) -> Annotation? {
        try await read { db in
            let patientID = try AnnotationQueries.owner(of: entryID, person: patientID, in: db)
            return try db.row("SELECT \(AnnotationQueries.columns) WHERE a.patient_id = ? AND a.entry_id = ?", [patientID, entryID],
                       AnnotationQueries.annotation)
        }
    }

    /// Removes an annotation; false when there was none.
    public func deleteAnnotation(patientID: String, entryID: String) async throws(StoreError) -> Bool {
        try await write { db in
            let patientID = try AnnotationQueries.owner(of: entryID, person: patientID, in: db)
            try db.execute("DELETE FROM annotations WHERE patient_id = ? AND entry_id = ?", [patientID, entryID])
            guard db.changes > 0 else { return false }
            try db.execute("UPDATE patients SET revision = revision + 1 WHERE id = ?", [patientID])
            return true
        }
    }

    /// Every annotation of a patient, orphaned ones included, by entry id order.
    public func annotations(patientID: String) async throws(StoreError) -> [Annotation] {
        try await read { db in try AnnotationQueries.all(patientID: patientID, in: db) }
    }

    package func annotationsSync(patientID: String) throws(StoreError) -> [Annotation] {
        try readSync { db in try AnnotationQueries.all(patientID: patientID, in: db) }
    }
}
