import HealthRecord

/// What a timeline request needs before it can pick a window and look in its cache.
public struct TimelineHead: Sendable, Equatable {
    /// The person's id: the patient's own, or the head of the person it is linked into.
    public var patientID: String
    /// The patient's revision; for a linked person, the sum of its patients' (each change raises one).
    public var revision: Int64
    /// The earliest time of any of the patient's entries or posts (the start of the `all` page).
    public var earliest: Int64?
    /// The patients the timeline shows together: `[patientID]`, or every patient of a linked person.
    public var members: [String]
    /// How many entries the record holds (all its patients'): how large its `all` page is.
    public var entryCount: Int

    public init(patientID: String, revision: Int64, earliest: Int64?, members: [String]? = nil, entryCount: Int = 0) {
        self.patientID = patientID
        self.revision = revision
        self.earliest = earliest
        self.members = members ?? [patientID]
        self.entryCount = entryCount
    }
}
