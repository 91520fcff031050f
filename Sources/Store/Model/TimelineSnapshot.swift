/// Everything one timeline window shows of one patient, read in one consistent snapshot.
public struct TimelineSnapshot: Sendable {
    public var patient: Patient
    public var entries: [StoredEntry]
    public var ongoing: [StoredEntry]
    public var posts: [TimelinePost]

    public init(patient: Patient, entries: [StoredEntry], ongoing: [StoredEntry], posts: [TimelinePost]) {
        self.patient = patient
        self.entries = entries
        self.ongoing = ongoing
        self.posts = posts
    }
}
