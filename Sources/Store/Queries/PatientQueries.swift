extension Store {
    static let patientColumns = """
        p.id, s.name AS source, p.record_id, p.name, p.gender, p.birthdate, p.entry_count, p.revision
        FROM patients p JOIN sources s ON s.id = p.source_id
        """

    static func patient(_ row: Row) -> Patient {
        Patient(id: row.string("id"), sourceName: row.string("source"), recordID: row.string("record_id"), name: row.string("name"),
                gender: row.stringOrNil("gender"), birthdate: row.int64OrNil("birthdate"), entryCount: Int(row.int64("entry_count")),
                revision: row.int64("revision"))
    }

    /// Every patient, by name.
    public func patients() async throws(StoreError) -> [Patient] {
        try await read { db in try db.rows("SELECT \(Store.patientColumns) ORDER BY p.name, p.id", [], Store.patient) }
    }

    public func patientsSync() throws(StoreError) -> [Patient] {
        try readSync { db in try db.rows("SELECT \(Store.patientColumns) ORDER BY p.name, p.id", [], Store.patient) }
    }

    /// One patient, or nil.
    public func patient(id: String) async throws(StoreError) -> Patient? {
        try await read { db in try db.row("SELECT \(Store.patientColumns) WHERE p.id = ?", [id], Store.patient) }
    }
}
