import HealthRecord

/// The family's own say about its people: who each is to them, their order, the name they use; and
/// removing a person with everything that is theirs.
extension Store {
    /// A change to a person's settings: each field given is set (`.some(nil)` clears it).
    public struct PersonChange: Sendable {
        public var relationship: Patient.Relationship??
        public var order: Int64??
        public var displayName: String??

        public init(relationship: Patient.Relationship?? = nil, order: Int64?? = nil, displayName: String?? = nil) {
            self.relationship = relationship
            self.order = order
            self.displayName = displayName
        }
    }

    /// Applies a change; nil when there is no such patient.
    public func updatePerson(id: String, _ change: PersonChange, now: Int64 = Store.now()) async throws(StoreError) -> Patient? {
        try await write { db in try PeopleQueries.update(id: id, change, now: now, in: db) }
    }

    package func updatePersonSync(id: String, _ change: PersonChange, now: Int64 = Store.now()) throws(StoreError) -> Patient? {
        try writeSync { db in try PeopleQueries.update(id: id, change, now: now, in: db) }
    }

    /// Removes a patient and everything that is theirs (entries, posts, annotations, identifiers, kept
    /// resources, links), in one transaction, and remembers the record so that a sync of its source does
    /// not bring it back. False when there was no such patient.
    public func removePatient(id: String, now: Int64 = Store.now()) async throws(StoreError) -> Bool {
        try await write { db in try PeopleQueries.remove(id: id, now: now, in: db) }
    }

    package func removePatientSync(id: String, now: Int64 = Store.now()) throws(StoreError) -> Bool {
        try writeSync { db in try PeopleQueries.remove(id: id, now: now, in: db) }
    }
}

enum PeopleQueries {
    static func update(id: String, _ change: Store.PersonChange, now: Int64, in db: Database) throws -> Patient? {
        guard try db.scalar("SELECT 1 FROM patients WHERE id = ?", [id], as: Int64.self) != nil else { return nil }
        if let relationship = change.relationship {
            try db.execute("UPDATE patients SET relationship = ? WHERE id = ?", [relationship?.rawValue, id])
        }
        if let order = change.order { try db.execute("UPDATE patients SET display_order = ? WHERE id = ?", [order, id]) }
        if let name = change.displayName { try db.execute("UPDATE patients SET display_name = ? WHERE id = ?", [name, id]) }
        // The timeline names the person: its cached pages are keyed by the revision.
        try db.execute("UPDATE patients SET revision = revision + 1, updated_at = ? WHERE id = ?", [now, id])
        return try db.row("SELECT \(Store.patientColumns) WHERE p.id = ?", [id], Store.patient)
    }

    static func remove(id: String, now: Int64, in db: Database) throws -> Bool {
        guard let (sourceID, recordID) = try db.row("SELECT source_id, record_id FROM patients WHERE id = ?", [id], { row in
            (row.int64("source_id"), row.string("record_id"))
        }) else { return false }
        try db.execute("INSERT OR REPLACE INTO removed_records (source_id, record_id, removed_at) VALUES (?, ?, ?)", [sourceID, recordID, now])
        // A person the removed patient was the head of keeps its other parts, under the next of them.
        if let heir = try db.scalar("SELECT patient_id FROM patient_links WHERE person_id = ? ORDER BY patient_id LIMIT 1", [id], as: String.self) {
            try db.execute("DELETE FROM patient_links WHERE patient_id = ?", [heir])
            try db.execute("UPDATE patient_links SET person_id = ? WHERE person_id = ?", [heir, id])
        }
        // The record imported again (a file is the person's say) is a patient of the same id: its revisions
        // go on from this one's, never repeat them. Pages are cached by patient and revision, and a page of
        // the removed record must never be taken for one of the record as it comes back.
        try db.execute("""
            INSERT OR REPLACE INTO settings (key, value)
            SELECT '\(RecordImport.revisionFloorKey)', max(revision, \(RecordImport.revisionFloorSQL)) FROM patients WHERE id = ?
            """, [id])
        // Entries, posts, annotations, identifiers, kept resources and links go with the patient (ON DELETE CASCADE).
        try db.execute("DELETE FROM patients WHERE id = ?", [id])
        return true
    }

    /// Whether a person removed this record of a source: a sync then leaves it out.
    static func isRemoved(sourceID: Int64, recordID: String, in db: Database) throws -> Bool {
        try db.scalar("SELECT 1 FROM removed_records WHERE source_id = ? AND record_id = ?", [sourceID, recordID], as: Int64.self) != nil
    }
}
