import HealthRecord

/// What the summary reads of one person in one snapshot: the patient, the entries of the types asked for
/// (every linked patient's, each fact once, oldest first; the ones the person struck out left out), the
/// source text of its allergies, the person's readings, posts and annotations.
public struct SummarySource: Sendable {
    public var patient: Patient
    public var entries: [EntryType: [StoredEntry]]
    /// An allergy's stored source (JSON), by entry id: what its reaction and severity are read from.
    public var allergySources: [String: String]
    public var readings: [Reading]
    public var posts: [TimelinePost]
    public var annotations: [String: Annotation]

    public init(patient: Patient, entries: [EntryType: [StoredEntry]], allergySources: [String: String], readings: [Reading],
                posts: [TimelinePost], annotations: [String: Annotation]) {
        self.patient = patient
        self.entries = entries
        self.allergySources = allergySources
        self.readings = readings
        self.posts = posts
        self.annotations = annotations
    }
}
