/// Something the user recorded on the timeline: levels (pain, mood, energy), a new medication, or regimen
/// adherence. The fields are kept as the flat JSON object the API accepted.
public struct TimelinePost: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case levels
        case medication
        case regimen
    }

    public var id: String
    public var patientID: String
    public var kind: Kind
    /// Epoch seconds when it was posted; what selects it into a timeline window.
    public var createdAt: Int64
    /// A flat JSON object: field → string, number, boolean, or array of strings (a repeated form field).
    public var dataJSON: String

    public init(id: String, patientID: String, kind: Kind, createdAt: Int64, dataJSON: String) {
        self.id = id
        self.patientID = patientID
        self.kind = kind
        self.createdAt = createdAt
        self.dataJSON = dataJSON
    }
}
