import FoundationEssentials
import HealthRecord

extension Store {
    /// What `entry(patientID:entryID:)` found.
    public enum EntryLookup: Sendable, Equatable {
        case found(Entry)
        case unknownPatient
        case unknownEntry
    }

    /// One entry of the person `patientID` belongs to (held by that patient or one linked into them), with
    /// its codes, without its source's JSON (`rawJSON` is `{}`): for what is shown about a single entry (the
    /// library's "about this").
    public func entry(patientID: String, entryID: String) async throws(StoreError) -> EntryLookup {
        try await read { db in
            guard try db.scalar("SELECT 1 FROM patients WHERE id = ?", [patientID], as: Int64.self) != nil else { return .unknownPatient }
            let owner = try AnnotationQueries.owner(of: entryID, person: patientID, in: db)
            let entry = try db.row("""
                SELECT id, type, description, time, start_time, end_time, status, value, text_value, units, codes, source_entry_id \
                FROM entries WHERE patient_id = ? AND id = ?
                """, [owner, entryID]) { row -> Entry in
                guard let type = EntryType(rawValue: row.string("type")) else {
                    throw StoreError.invalidInput("the store holds an entry of unknown type \(row.string("type"))")
                }
                return Entry(id: row.string("id"), type: type, description: row.stringOrNil("description"), time: row.int64OrNil("time"),
                             startTime: row.int64OrNil("start_time"), endTime: row.int64OrNil("end_time"), status: row.stringOrNil("status"),
                             value: row.doubleOrNil("value"), textValue: row.stringOrNil("text_value"), units: row.stringOrNil("units"),
                             codes: Self.codes(json: row.string("codes")), sourceID: row.stringOrNil("source_entry_id"))
            }
            return entry.map(EntryLookup.found) ?? .unknownEntry
        }
    }

    /// The `codes` column (`{"CVX":["09"]}`, as `JSONWriter.codes` writes it) back as a dictionary.
    static func codes(json: String) -> [String: [String]] {
        (try? JSONDecoder().decode([String: [String]].self, from: Data(json.utf8))) ?? [:]
    }
}
