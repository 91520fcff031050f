import HealthRecord

/// A file a person imported, as the store keeps it: its bytes (encrypted with the rest of the store),
/// its hash, when, and what the import made of it (the report, as JSON).
public struct ImportedFile: Sendable, Equatable {
    public var id: Int64
    /// The files of one folder import share a batch.
    public var batch: Int64
    public var name: String
    public var mediaType: String?
    public var sha256: [UInt8]
    public var size: Int
    public var importedAt: Int64
    public var reportJSON: String

    public init(id: Int64, batch: Int64, name: String, mediaType: String?, sha256: [UInt8], size: Int, importedAt: Int64,
                reportJSON: String) {
        self.id = id
        self.batch = batch
        self.name = name
        self.mediaType = mediaType
        self.sha256 = sha256
        self.size = size
        self.importedAt = importedAt
        self.reportJSON = reportJSON
    }

    public var sha256Hex: String { StableID.hex(sha256) }
}
