import HealthRecord

extension Store {
    static let patientColumns = """
        p.id, s.name AS source, p.record_id, p.name, p.gender, p.birthdate, p.entry_count, p.revision,
        p.relationship, p.display_name, p.display_order, p.deceased, p.deceased_at
        FROM patients p JOIN sources s ON s.id = p.source_id
        """

    static func patient(_ row: Row) -> Patient {
        Patient(id: row.string("id"), sourceName: row.string("source"), recordID: row.string("record_id"), name: row.string("name"),
                gender: row.stringOrNil("gender"), birthdate: row.int64OrNil("birthdate"), entryCount: Int(row.int64("entry_count")),
                revision: row.int64("revision"), relationship: row.stringOrNil("relationship").flatMap(Patient.Relationship.init(rawValue:)),
                displayName: row.stringOrNil("display_name"), order: row.int64OrNil("display_order"),
                deceased: row.int64("deceased") != 0, deceasedDate: row.int64OrNil("deceased_at"))
    }

    /// The family's order: the places people were given, then by the name they are shown under.
    static let familyOrder = "ORDER BY p.display_order IS NULL, p.display_order, coalesce(p.display_name, p.name), p.id"

    /// Every patient, in the family's order.
    public func patients() async throws(StoreError) -> [Patient] {
        try await read { db in try db.rows("SELECT \(Store.patientColumns) \(Store.familyOrder)", [], Store.patient) }
    }

    package func patientsSync() throws(StoreError) -> [Patient] {
        try readSync { db in try db.rows("SELECT \(Store.patientColumns) \(Store.familyOrder)", [], Store.patient) }
    }

    /// One patient, or nil.
    public func patient(id: String) async throws(StoreError) -> Patient? {
        try await read { db in try db.row("SELECT \(Store.patientColumns) WHERE p.id = ?", [id], Store.patient) }
    }
}
