/// A patient as listed: identity, demographics and how many entries the store holds.
public struct Patient: Sendable, Equatable {
    public var id: String
    public var sourceName: String
    public var recordID: String
    public var name: String
    public var gender: String?
    public var birthdate: Int64?
    public var entryCount: Int
    /// Increases whenever the patient's entries or posts change: a cache key for computed payloads.
    public var revision: Int64
    /// Who the person is to the family's keeper; nil until they say.
    public var relationship: Relationship?
    /// The name the family uses, over the source's.
    public var displayName: String?
    /// The place in the family's list; nil sorts after those with one, by name.
    public var order: Int64?
    /// The source says the person has died.
    public var deceased: Bool
    /// When, in epoch seconds, when the source says.
    public var deceasedDate: Int64?

    /// The time ages are counted to: the death when the person has died (and the source says when), else `now`.
    public func ageTime(now: Int64) -> Int64 {
        guard deceased, let deceasedDate else { return now }
        return min(deceasedDate, now)
    }

    /// What the person is called on screen: the display name, else the source's name.
    public var shownName: String { displayName ?? name }

    public enum Relationship: String, Sendable, CaseIterable {
        case me, spouse, partner, child, parent, family, other
    }

    public init(id: String, sourceName: String, recordID: String, name: String, gender: String?, birthdate: Int64?, entryCount: Int, revision: Int64,
                relationship: Relationship? = nil, displayName: String? = nil, order: Int64? = nil, deceased: Bool = false, deceasedDate: Int64? = nil) {
        self.deceased = deceased || deceasedDate != nil
        self.deceasedDate = deceasedDate
        self.relationship = relationship
        self.displayName = displayName
        self.order = order
        self.id = id
        self.sourceName = sourceName
        self.recordID = recordID
        self.name = name
        self.gender = gender
        self.birthdate = birthdate
        self.entryCount = entryCount
        self.revision = revision
    }

    /// The patient id for a record of a source: stable across re-imports.
    public static func id(sourceName: String, recordID: String) -> String {
        StableID.make("p", [sourceName, recordID])
    }
}
