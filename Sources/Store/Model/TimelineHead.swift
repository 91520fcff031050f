/// What a timeline request needs before it can pick a window and look in its cache.
public struct TimelineHead: Sendable, Equatable {
    public var patientID: String
    public var revision: Int64
    /// The earliest time of any of the patient's entries or posts (the start of the `all` page).
    public var earliest: Int64?
}
