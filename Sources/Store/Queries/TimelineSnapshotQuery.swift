import HealthRecord
import Synchronization

/// The timeline's one read: everything a window shows of one patient — the patient, the window's
/// entries (`TimelineWindowQuery`), the ongoing ones (`OngoingQuery`) and the posts of the window — in
/// one consistent snapshot, so that a page never mixes two states of the record.
enum TimelineSnapshotQuery {
    /// nil when there is no such patient.
    static func read(patientID: String, members: [String]? = nil, from start: Int64, to end: Int64, in db: Database) throws -> TimelineSnapshot? {
        if let members, members.count > 1 {
            return try LinkedTimelineQuery.read(head: patientID, members: members, from: start, to: end, in: db)
        }
        return try read(patientID: patientID, from: start, to: end, datedUpTo: end, in: db)?.snapshot(adding: [])
    }

    /// A window read but for the entries dated after `datedUpTo`, which a read in slices reads beside it
    /// (`laterSlice`); its patient's revision says which state of the record it is.
    struct Part: Sendable {
        let patient: Patient
        let rows: TimelineWindowQuery.TimelineRows
        /// The spanning entries dated after the window: last of all.
        let later: TimelineWindowQuery.TimelineRows
        let ongoing: EntryList
        let posts: [TimelinePost]
        let readings: [Reading]
        let annotations: [String: Annotation]

        /// The snapshot, with the entries dated after `datedUpTo`: the later slices', in order, read at the
        /// same revision.
        /// Each part's vital signs stay in their own array (`TimelineSnapshot.vitalSignRuns`).
        func snapshot(adding laterSlices: [TimelineWindowQuery.TimelineRows]) -> TimelineSnapshot {
            var rows = self.rows
            for slice in laterSlices { rows.appendEntries(of: slice) }
            rows.appendEntries(of: later)
            var snapshot = TimelineSnapshot(patient: patient, sections: rows.sections, vitalSigns: [], ongoing: ongoing,
                                            posts: posts, readings: readings, annotations: annotations)
            let runs = [self.rows.vitalSigns] + laterSlices.map(\.vitalSigns) + [later.vitalSigns]
            snapshot.vitalSignRuns = TimelineSnapshot.merging(runs: runs, readings)
            return snapshot
        }
    }

    /// nil when there is no such patient.
    static func read(patientID: String, from start: Int64, to end: Int64, datedUpTo: Int64, in db: Database) throws -> Part? {
        guard let patient = try db.row("SELECT \(Store.patientColumns) WHERE p.id = ?", [patientID], Store.patient) else {
            return nil
        }
        let annotations = try self.annotations(patientID: patientID, in: db)
        let annotated = Set(annotations.keys)
        let window = try TimelineWindowQuery.timelineUpTo(patientID: patientID, from: start, to: end, datedUpTo: datedUpTo,
                                                          annotated: annotated, in: db)
        return Part(patient: patient, rows: window.rows, later: window.later,
                    ongoing: try OngoingQuery.entries(patientID: patientID, from: start, to: end, annotated: annotated, in: db),
                    posts: try TimelinePostQueries.posts(patientID: patientID, from: start, to: end, in: db),
                    readings: try ReadingQueries.readings(patientID: patientID, from: start, to: end, in: db),
                    annotations: annotations)
    }

    /// A later slice of a read in slices: the entries dated in `start...end`, with the patient's revision.
    struct Slice: Sendable {
        /// nil: the patient is gone.
        let revision: Int64?
        let rows: TimelineWindowQuery.TimelineRows
    }

    static func laterSlice(patientID: String, from start: Int64, to end: Int64, in db: Database) throws -> Slice {
        let revision = try db.scalar("SELECT revision FROM patients WHERE id = ?", [patientID], as: Int64.self)
        let annotated = Set(try annotations(patientID: patientID, in: db).keys)
        return Slice(revision: revision,
                     rows: try TimelineWindowQuery.datedRows(patientID: patientID, from: start, to: end, annotated: annotated, in: db))
    }

    enum SlicesOutcome {
        case snapshot(TimelineSnapshot)
        case noPatient
        /// The slices were read at two revisions: a change landed between them.
        case changed
    }

    /// The first part and the later slices (in order) as one snapshot, when all were read at one revision.
    static func combine(_ first: Part?, _ later: [Slice]) -> SlicesOutcome {
        guard let first else { return .noPatient }
        guard later.allSatisfy({ $0.revision == first.patient.revision }) else { return .changed }
        return .snapshot(first.snapshot(adding: later.map(\.rows)))
    }

    /// Where a window's slices begin and end: `count + 1` times from `start` to `end`. Slice 0 holds the
    /// entries dated up to bound 1; slice `k` those dated after bound `k`, up to bound `k + 1`.
    static func sliceBounds(from start: Int64, to end: Int64, count: Int) -> [Int64] {
        let span = end - start
        let n = Int64(count)
        return (0...n).map { k in start + span / n * k + span % n * k / n }
    }

    private static func annotations(patientID: String, in db: Database) throws -> [String: Annotation] {
        try AnnotationQueries.any(patientID: patientID, in: db) ? try AnnotationQueries.byEntry(patientID: patientID, in: db) : [:]
    }
}

extension Store {
    /// How many slices a window read in slices is cut into (`timelineSnapshot(inSlices:)`).
    static let parallelSlices = 8

    /// What the window `start...end` (epoch seconds, inclusive) shows of `patientID`, in one snapshot;
    /// nil when there is no such patient.
    /// With `members` (a linked person's patients, from its head), their union.
    ///
    /// `inSlices` (a long window of a long record: the `all` page of 100,000 entries): the window is cut in
    /// `parallelSlices` slices by date, which two readers read at once, each taking the next slice left; the
    /// slices are kept only when all were read at the same revision of the patient (otherwise the window is
    /// read again, whole). Most of such a read is decrypting the timeline index's pages, which then takes two
    /// cores where it took one. Slices, not halves: a record's entries are rarely spread evenly over its years.
    public func timelineSnapshot(patientID: String, members: [String]? = nil, from start: Int64, to end: Int64,
                                 inSlices: Bool = false) async throws(StoreError) -> TimelineSnapshot? {
        let count = Self.parallelSlices
        if inSlices, (members?.count ?? 1) <= 1, end - start >= Int64(count) {
            let bounds = TimelineSnapshotQuery.sliceBounds(from: start, to: end, count: count)
            let slices = Mutex([TimelineSnapshotQuery.Slice?](repeating: nil, count: count))
            let next = Atomic<Int>(1)
            // Takes the next slice left until none is (slice 0 is read apart, with the rest of the window).
            let takeSlices: @Sendable () async throws -> Void = { [self] in
                while true {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    guard index < count else { return }
                    let slice = try await read { db in
                        try TimelineSnapshotQuery.laterSlice(patientID: patientID, from: bounds[index] + 1, to: bounds[index + 1], in: db)
                    }
                    slices.withLock { $0[index] = slice }
                }
            }
            do {
                async let other: Void = takeSlices()
                let first = try await read { db in
                    try TimelineSnapshotQuery.read(patientID: patientID, from: start, to: end, datedUpTo: bounds[1], in: db)
                }
                try await takeSlices()
                try await other
                let later = slices.withLock { Array($0[1...]) }.compactMap { $0 }
                switch TimelineSnapshotQuery.combine(first, later) {
                case .snapshot(let snapshot): return snapshot
                case .noPatient: return nil
                case .changed: break  // read once, whole, below
                }
            } catch {
                throw StoreError.wrap(error)
            }
        }
        return try await read { db in try TimelineSnapshotQuery.read(patientID: patientID, members: members, from: start, to: end, in: db) }
    }
}
