import HealthRecord

/// The timeline's one read: everything a window shows of one patient — the patient, the window's
/// entries (`TimelineWindowQuery`), the ongoing ones (`OngoingQuery`) and the posts of the window — in
/// one consistent snapshot, so that a page never mixes two states of the record.
enum TimelineSnapshotQuery {
    /// nil when there is no such patient.
    static func read(patientID: String, members: [String]? = nil, from start: Int64, to end: Int64, in db: Database) throws -> TimelineSnapshot? {
        if let members, members.count > 1 {
            return try LinkedTimelineQuery.read(head: patientID, members: members, from: start, to: end, in: db)
        }
        guard let patient = try db.row("SELECT \(Store.patientColumns) WHERE p.id = ?", [patientID], Store.patient) else {
            return nil
        }
        let annotations = try AnnotationQueries.any(patientID: patientID, in: db)
            ? try AnnotationQueries.byEntry(patientID: patientID, in: db) : [:]
        let annotated = Set(annotations.keys)
        let window = try TimelineWindowQuery.timeline(patientID: patientID, from: start, to: end, annotated: annotated, in: db)
        let readings = try ReadingQueries.readings(patientID: patientID, from: start, to: end, in: db)
        return TimelineSnapshot(
            patient: patient, sections: window.sections, vitalSigns: TimelineSnapshot.merging(window.vitalSigns, readings),
            ongoing: try OngoingQuery.entries(patientID: patientID, from: start, to: end, annotated: annotated, in: db),
            posts: try TimelinePostQueries.posts(patientID: patientID, from: start, to: end, in: db),
            readings: readings, annotations: annotations)
    }
}

extension Store {
    /// What the window `start...end` (epoch seconds, inclusive) shows of `patientID`, in one snapshot;
    /// nil when there is no such patient.
    /// With `members` (a linked person's patients, from its head), their union.
    public func timelineSnapshot(patientID: String, members: [String]? = nil, from start: Int64, to end: Int64) async throws(StoreError) -> TimelineSnapshot? {
        try await read { db in try TimelineSnapshotQuery.read(patientID: patientID, members: members, from: start, to: end, in: db) }
    }
}
