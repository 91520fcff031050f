import HealthRecord

/// A timeline page read in parts rather than in one snapshot (`Store.timelineOutline`, `timelineEntries`):
/// for a page too large to hold whole, which is then written as it is read. Each part is read in a snapshot
/// of its own, at the patient's revision the page began at: a part read after the patient changed is refused
/// (`StoreError.changedDuringRead`), so a page in parts never mixes two states of the record.
public struct TimelineOutline: Sendable {
    /// Everything but the window's entries and vital signs, as in `TimelineSnapshot`.
    public var patient: Patient
    public var ongoing: EntryList
    public var posts: [TimelinePost]
    public var readings: [Reading]
    public var annotations: [String: Annotation]
    /// The entries shown for a start or end in the window while dated outside it, found once for the page.
    public var spanning: TimelineSpanning
}

/// The window's entries that a start or an end brings into it while their date lies outside it, as row
/// numbers by type, each in (date, id) order: those dated before the window (or undated) lead their type's
/// part, those dated after it end it. A few, usually; found with one read of the start and end indexes for
/// the whole page, where each type's first and last part read both indexes again (for the `all` page, whose
/// window holds every start and end, that was half of the page's time).
public struct TimelineSpanning: Sendable {
    var before: [EntryType: [Int64]] = [:]
    var after: [EntryType: [Int64]] = [:]
}

/// Where the next part of a window's entries of one type starts: after this (date, id).
public struct TimelineCursor: Sendable, Equatable {
    public var date: Int64
    public var id: String
}

/// One part of a window's entries of one type, in (date, id) order; `next` is nil after the last part.
/// The vital signs' parts hold them in `vitalSigns`, not in `entries`.
public struct TimelineEntryPart: Sendable {
    public var entries: EntryList
    public var vitalSigns: [StoredEntry] = []
    public var next: TimelineCursor?
}
