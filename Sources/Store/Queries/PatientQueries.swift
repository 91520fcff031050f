extension Store {
    static let patientColumns = """
        p.id, s.name, p.record_id, p.name, p.gender, p.birthdate, p.entry_count, p.revision
        FROM patients p JOIN sources s ON s.id = p.source_id
        """

    static func patient(_ row: Row) -> Patient {
        Patient(id: row.string(0), sourceName: row.string(1), recordID: row.string(2), name: row.string(3),
                gender: row.stringOrNil(4), birthdate: row.int64OrNil(5), entryCount: Int(row.int64(6)), revision: row.int64(7))
    }

    /// Every patient, by name.
    public func patients() async throws(StoreError) -> [Patient] {
        try await read { db in try db.rows("SELECT \(Store.patientColumns) ORDER BY p.name, p.id", [], Store.patient) }
    }

    public func patientsSync() throws(StoreError) -> [Patient] {
        try readSync { db in try db.rows("SELECT \(Store.patientColumns) ORDER BY p.name, p.id", [], Store.patient) }
    }
}
