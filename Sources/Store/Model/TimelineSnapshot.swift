import HealthRecord

/// Everything one timeline window shows of one patient, read in one consistent snapshot.
public struct TimelineSnapshot: Sendable {
    public var patient: Patient
    /// The window's entries other than vital signs, by type, in date order (then id).
    public var sections: [EntryType: EntryList]
    /// The window's vital signs in date order, with the fields the `vitals` groups need, in the runs they were
    /// read in: a page read in slices keeps each slice's run as it is (copying them into one array was a tenth
    /// of the `all` page's time at 100,000 entries). Each run is in date order and follows the one before.
    public internal(set) var vitalSignRuns: [[StoredEntry]]
    /// The window's vital signs in date order, in one array.
    public var vitalSigns: [StoredEntry] { vitalSignRuns.count == 1 ? vitalSignRuns[0] : Array(vitalSignRuns.joined()) }
    /// How many `vitalSigns` holds.
    public var vitalSignCount: Int { vitalSignRuns.reduce(0) { $0 + $1.count } }
    public var ongoing: EntryList
    public var posts: [TimelinePost]
    /// The person's own readings taken in the window, oldest first (their vital signs are in `vitalSigns` too).
    public var readings: [Reading]
    /// The annotations of the entries in `sections` and `ongoing` (marked there), by entry id.
    public var annotations: [String: Annotation]
    /// For a linked person: a shown entry whose fact other sources hold too, by entry id → every source's name.
    public var alsoFrom: [String: [String]]

    public init(patient: Patient, sections: [EntryType: EntryList], vitalSigns: [StoredEntry], ongoing: EntryList,
                posts: [TimelinePost], readings: [Reading] = [], annotations: [String: Annotation] = [:], alsoFrom: [String: [String]] = [:]) {
        self.readings = readings
        self.annotations = annotations
        self.alsoFrom = alsoFrom
        self.patient = patient
        self.sections = sections
        self.vitalSignRuns = [vitalSigns]
        self.ongoing = ongoing
        self.posts = posts
    }

    /// Imported vital signs in runs (each in date order, one after the other) with the readings' (in date
    /// order) merged in by date: the runs as they are when there are no readings.
    static func merging(runs: [[StoredEntry]], _ readings: [Reading]) -> [[StoredEntry]] {
        let runs = runs.filter { !$0.isEmpty }
        guard !readings.isEmpty else { return runs.isEmpty ? [[]] : runs }
        return [merging(Array(runs.joined()), readings)]
    }

    /// Imported vital signs (in date order) with the readings' (in date order) merged in by date; a reading
    /// goes after an imported sign of the same time.
    public static func merging(_ vitalSigns: [StoredEntry], _ readings: [Reading]) -> [StoredEntry] {
        guard !readings.isEmpty else { return vitalSigns }
        let own = readings.flatMap(\.vitalSigns)
        var merged: [StoredEntry] = []
        merged.reserveCapacity(vitalSigns.count + own.count)
        var next = own.startIndex
        for sign in vitalSigns {
            while next < own.endIndex, let date = sign.date, let ownDate = own[next].date, ownDate < date {
                merged.append(own[next]); next += 1
            }
            merged.append(sign)
        }
        merged += own[next...]
        return merged
    }

    /// The number of entries in the window.
    public var entryCount: Int { sections.values.reduce(vitalSignCount) { $0 + $1.count } }
}
