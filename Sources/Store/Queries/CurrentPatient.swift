import HealthRecord

extension Store {
    /// The patient the timeline shows by default: the one selected last, else the first by name; nil when
    /// the store holds no patient yet.
    public func currentPatientID() async throws(StoreError) -> String? {
        try await read { db in try CurrentPatient.id(in: db) }
    }

    /// Selects the current patient; false when there is no such patient.
    public func setCurrentPatient(id: String) async throws(StoreError) -> Bool {
        try await write { db in
            guard try db.scalar("SELECT count(*) FROM patients WHERE id = ?", [id], as: Int.self) == 1 else { return false }
            try db.execute("DELETE FROM settings WHERE key = 'current_patient'")
            try db.execute("INSERT INTO settings (key, value) VALUES ('current_patient', ?)", [id])
            return true
        }
    }
}

enum CurrentPatient {
    static func id(in db: Database) throws -> String? {
        if let selected = try db.scalar("""
            SELECT p.id FROM settings s JOIN patients p ON p.id = s.value WHERE s.key = 'current_patient'
            """, as: String.self) {
            return selected
        }
        return try db.scalar("SELECT p.id FROM patients p \(Store.familyOrder) LIMIT 1", as: String.self)
    }
}
