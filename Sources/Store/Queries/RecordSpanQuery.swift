import HealthRecord

/// When a patient's record begins and ends: the dates of their first and last entry (an entry's date is
/// the first of its time, start and end). Each bound is a seek into each type's range of the index by type
/// and date (`EntriesByDateQuery`), so listing a family with its spans costs next to nothing however long
/// the records are. Posts are not entries of the record and do not count (the `all` page's start, which
/// counts them, is the head's).
public struct RecordSpan: Sendable, Equatable {
    public var earliest: Int64?
    public var latest: Int64?
}

enum RecordSpanQuery {
    static func span(patientID: String, in db: Database) throws -> RecordSpan {
        // Two statements: SQLite answers a lone min() or max() from the index's end, not both at once.
        RecordSpan(earliest: try db.scalar(EntriesByDateQuery.earliestDateSQL, [patientID], as: Int64.self),
                   latest: try db.scalar(EntriesByDateQuery.latestDateSQL, [patientID], as: Int64.self))
    }
}

extension Store {
    /// Every patient, in the family's order, with the span of their record and the head of the person they
    /// are linked into (nil for a person of one); in one snapshot.
    public func patientsWithSpans() async throws(StoreError) -> [(patient: Patient, span: RecordSpan, person: String?)] {
        try await read { db in
            var heads: [String: String] = [:]
            try db.statement("SELECT patient_id, person_id FROM patient_links").forEach([]) { row in heads[row.string(0)] = row.string(1) }
            let linkedHeads = Set(heads.values)
            return try db.rows("SELECT \(Store.patientColumns) \(Store.familyOrder)", [], Store.patient).map { patient in
                (patient, try RecordSpanQuery.span(patientID: patient.id, in: db),
                 heads[patient.id] ?? (linkedHeads.contains(patient.id) ? patient.id : nil))
            }
        }
    }
}
