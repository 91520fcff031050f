import HealthRecord
import Records
/// One member of a synthetic family: who they are, before any clinical entries.
public struct SyntheticPatient: Sendable, Equatable {
    /// How the person relates to the family's first member: a hint for the demo ("my mother's record").
    public enum Relationship: String, Sendable, CaseIterable {
        case primary = "self"
        case spouse
        case child
        case parent
    }

    /// Position in the family (0 is the primary person); also seeds this person's entries.
    public let index: Int
    /// The record `_id` the generator writes: 24 hex digits, like a MongoDB ObjectId.
    public let recordID: String
    public let medicalRecordNumber: String
    public let firstName: String
    public let lastName: String
    /// "M" or "F", as RHEx records write it.
    public let gender: String
    /// Epoch seconds at noon UTC of the birthday; negative before 1970.
    public let birthdate: Int64
    public let relationship: Relationship

    /// "first last", as the parser builds it.
    public var name: String { firstName + " " + lastName }
}
