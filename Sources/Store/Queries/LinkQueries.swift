import HealthRecord

/// One person from many sources: patients linked into a person (`patient_links`), each still updated by
/// its own source. A person is known by the id of its first patient (the head); the others point to it.
enum LinkQueries {
    /// The head of the person `patientID` belongs to, and every patient of that person (the head first,
    /// then the others by id). A patient that is linked to nobody is a person of one.
    static func person(of patientID: String, in db: Database) throws -> (head: String, members: [String]) {
        let head = try db.scalar("SELECT person_id FROM patient_links WHERE patient_id = ?", [patientID], as: String.self) ?? patientID
        var members = [head]
        try db.statement("SELECT patient_id FROM patient_links WHERE person_id = ? ORDER BY patient_id").forEach([head]) { row in
            members.append(row.string(0))
        }
        return (head, members)
    }

    static func bumpRevisions(_ ids: [String], in db: Database) throws {
        for id in ids { try db.execute("UPDATE patients SET revision = revision + 1 WHERE id = ?", [id]) }
    }
}

extension Store {
    /// Why two patients could not be linked or unlinked.
    public enum LinkRefusal: Error, Sendable, Equatable {
        case unknownPatient(String)
        /// Linking a patient to itself, or to a person it already belongs to (which would make a cycle).
        case samePerson
        /// Unlinking a patient that is not part of this person.
        case notLinked
    }

    /// The person `patientID` belongs to: its head and every patient of it.
    public func person(of patientID: String) async throws(StoreError) -> (head: String, members: [String])? {
        try await read { db in
            guard try db.scalar("SELECT 1 FROM patients WHERE id = ?", [patientID], as: Int64.self) != nil else { return nil }
            return try LinkQueries.person(of: patientID, in: db)
        }
    }

    package func personSync(of patientID: String) throws(StoreError) -> (head: String, members: [String])? {
        try readSync { db in
            guard try db.scalar("SELECT 1 FROM patients WHERE id = ?", [patientID], as: Int64.self) != nil else { return nil }
            return try LinkQueries.person(of: patientID, in: db)
        }
    }

    /// Links `other` (and the person it belongs to) into the person of `patientID`.
    public func linkPatient(_ other: String, into patientID: String, now: Int64 = Store.now()) async throws(StoreError)
        -> Result<[String], LinkRefusal> {
        try await write { db in
            for id in [patientID, other] where try db.scalar("SELECT 1 FROM patients WHERE id = ?", [id], as: Int64.self) == nil {
                return .failure(.unknownPatient(id))
            }
            let person = try LinkQueries.person(of: patientID, in: db)
            let joining = try LinkQueries.person(of: other, in: db)
            guard person.head != joining.head else { return .failure(.samePerson) }
            for member in joining.members {
                try db.execute("INSERT OR REPLACE INTO patient_links (patient_id, person_id, linked_at) VALUES (?, ?, ?)",
                               [member, person.head, now])
            }
            let members = person.members + joining.members
            try LinkQueries.bumpRevisions(members, in: db)
            return .success(try LinkQueries.person(of: person.head, in: db).members)
        }
    }

    /// Takes `other` out of the person of `patientID`: it is a person of its own again, its record as it
    /// was. When `other` is the head, the next patient heads the rest.
    public func unlinkPatient(_ other: String, from patientID: String) async throws(StoreError) -> Result<[String], LinkRefusal> {
        try await write { db in
            guard try db.scalar("SELECT 1 FROM patients WHERE id = ?", [patientID], as: Int64.self) != nil else {
                return .failure(.unknownPatient(patientID))
            }
            let person = try LinkQueries.person(of: patientID, in: db)
            guard person.members.count > 1, person.members.contains(other) else { return .failure(.notLinked) }
            if other == person.head {
                let heir = person.members[1]
                try db.execute("DELETE FROM patient_links WHERE patient_id = ?", [heir])
                try db.execute("UPDATE patient_links SET person_id = ? WHERE person_id = ?", [heir, other])
            } else {
                try db.execute("DELETE FROM patient_links WHERE patient_id = ?", [other])
            }
            try LinkQueries.bumpRevisions(person.members, in: db)
            return .success(try LinkQueries.person(of: other == person.head ? person.members[1] : person.head, in: db).members)
        }
    }

    /// Patients who are probably the same person as `patientID` (same name, ignoring case and spaces, and
    /// the same birth day) but are not linked to it.
    public func linkSuggestions(for patientID: String) async throws(StoreError) -> [Patient] {
        try await read { db in
            let person = try LinkQueries.person(of: patientID, in: db)
            let all = try db.rows("SELECT \(Store.patientColumns) \(Store.familyOrder)", [], Store.patient)
            let members = all.filter { person.members.contains($0.id) }
            func key(_ patient: Patient) -> String? {
                guard let birthdate = patient.birthdate else { return nil }
                let name = patient.name.lowercased().split(whereSeparator: { $0 == " " || $0 == "," }).sorted().joined(separator: " ")
                return name + "|" + String(birthdate / 86_400 + (birthdate % 86_400 < 0 ? -1 : 0))
            }
            let keys = Set(members.compactMap(key))
            return all.filter { !person.members.contains($0.id) && key($0).map(keys.contains) == true }
        }
    }
}
