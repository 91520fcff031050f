import HealthRecord

/// The person's own readings (`readings`): added, edited and deleted one at a time, read with the
/// timeline, the summary and the export. Each change raises the patient's revision, so cached timeline
/// pages are never stale.
enum ReadingQueries {
    static let columns = "id, patient_id, kind, taken_at, value, second_value, unit, context, note, created_at, updated_at FROM readings"

    static func reading(_ row: Row) throws -> Reading {
        guard let kind = Reading.Kind(rawValue: row.string("kind")) else {
            throw StoreError.invalidInput("the store holds a reading of unknown kind \(row.string("kind"))")
        }
        return Reading(id: row.string("id"), patientID: row.string("patient_id"), kind: kind, takenAt: row.int64("taken_at"),
                       value: row.double("value"), secondValue: row.doubleOrNil("second_value"), unit: row.string("unit"),
                       context: row.stringOrNil("context").flatMap(Reading.Context.init(rawValue:)), note: row.stringOrNil("note"),
                       createdAt: row.int64("created_at"), updatedAt: row.int64("updated_at"))
    }

    /// The patient's readings taken in `start...end`, oldest first.
    static func readings(patientID: String, from start: Int64 = .min, to end: Int64 = .max, in db: Database) throws -> [Reading] {
        try db.rows("SELECT \(columns) WHERE patient_id = ? AND taken_at BETWEEN ? AND ? ORDER BY taken_at, id",
                    [patientID, start, end], reading)
    }

    static func earliest(patientID: String, in db: Database) throws -> Int64? {
        try db.scalar("SELECT min(taken_at) FROM readings WHERE patient_id = ?", [patientID], as: Int64.self)
    }
}

extension Store {
    /// Adds a reading for an existing patient (`.notFound` otherwise); its id is new.
    public func addReading(_ reading: Reading) async throws(StoreError) -> Reading {
        var stored = reading
        stored.id = StableID.random("r")
        return try await write { [stored] db in
            try db.execute("UPDATE patients SET revision = revision + 1 WHERE id = ?", [stored.patientID])
            guard db.changes == 1 else { throw StoreError.notFound("patient \(stored.patientID)") }
            try db.execute("""
                INSERT INTO readings (id, patient_id, kind, taken_at, value, second_value, unit, context, note, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [stored.id, stored.patientID, stored.kind.rawValue, stored.takenAt, stored.value, stored.secondValue, stored.unit,
                      stored.context?.rawValue, stored.note, stored.createdAt, stored.updatedAt])
            return stored
        }
    }

    /// Replaces what a reading says (its id, patient and creation time stay); nil when there is no such reading.
    public func updateReading(_ reading: Reading) async throws(StoreError) -> Reading? {
        try await write { db in
            try db.execute("""
                UPDATE readings SET kind = ?, taken_at = ?, value = ?, second_value = ?, unit = ?, context = ?, note = ?, updated_at = ?
                WHERE id = ?
                """, [reading.kind.rawValue, reading.takenAt, reading.value, reading.secondValue, reading.unit, reading.context?.rawValue,
                      reading.note, reading.updatedAt, reading.id])
            guard db.changes == 1,
                  let stored = try db.row("SELECT \(ReadingQueries.columns) WHERE id = ?", [reading.id], ReadingQueries.reading) else { return nil }
            try db.execute("UPDATE patients SET revision = revision + 1 WHERE id = ?", [stored.patientID])
            return stored
        }
    }

    /// Removes a reading; false when there is none with that id.
    public func deleteReading(id: String) async throws(StoreError) -> Bool {
        try await write { db in
            guard let patientID = try db.scalar("SELECT patient_id FROM readings WHERE id = ?", [id], as: String.self) else { return false }
            try db.execute("DELETE FROM readings WHERE id = ?", [id])
            try db.execute("UPDATE patients SET revision = revision + 1 WHERE id = ?", [patientID])
            return true
        }
    }

    public func reading(id: String) async throws(StoreError) -> Reading? {
        try await read { db in try db.row("SELECT \(ReadingQueries.columns) WHERE id = ?", [id], ReadingQueries.reading) }
    }

    /// The readings of the person `patientID` belongs to (every linked patient's), oldest first.
    public func readings(patientID: String) async throws(StoreError) -> [Reading] {
        try await read { db in
            let members = try LinkQueries.person(of: patientID, in: db).members
            return try members.flatMap { try ReadingQueries.readings(patientID: $0, in: db) }
                .sorted { ($0.takenAt, $0.id) < ($1.takenAt, $1.id) }
        }
    }
}
