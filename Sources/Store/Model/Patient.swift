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

    public init(id: String, sourceName: String, recordID: String, name: String, gender: String?, birthdate: Int64?, entryCount: Int, revision: Int64) {
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
