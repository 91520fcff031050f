/// What a document handed to a doctor holds: which sections, since when (results and vital signs), and
/// the time it is written at.
public struct SharingOptions: Sendable {
    /// The sections, in the documents' order (the required ones among them).
    public var sections: [SharedSection]
    /// Results and vital signs from this time on; nil for all.
    public var since: Int64?
    /// When the document is written (epoch seconds).
    public var now: Int64

    public init(sections: [SharedSection] = SharedSection.allCases, since: Int64? = nil, now: Int64) {
        self.sections = SharedSection.allCases.filter { sections.contains($0) || $0.isRequired }
        self.since = since
        self.now = now
    }
}
