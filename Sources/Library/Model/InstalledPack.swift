/// The pack the library serves now, as `current.json` records it.
public struct InstalledPack: Sendable, Equatable {
    public var version: PackVersion
    public var publisher: String
    /// When the publisher made the pack (epoch seconds).
    public var created: Int64
    /// When this installation switched to it (epoch seconds).
    public var installedAt: Int64
    /// Where it came from: `bundled`, a URL, or a folder, as the installer was told.
    public var source: String
    public var counts: PackManifest.Counts
    public var languages: [String]
    /// The database's file name in the library folder (`pack-2025.10.1-1a2b3c4d5e6f.sqlite`).
    public var file: String
    /// SHA-256 (hex) of the database.
    public var sha256: String

    public init(version: PackVersion, publisher: String, created: Int64, installedAt: Int64, source: String,
                counts: PackManifest.Counts, languages: [String], file: String, sha256: String) {
        self.version = version
        self.publisher = publisher
        self.created = created
        self.installedAt = installedAt
        self.source = source
        self.counts = counts
        self.languages = languages
        self.file = file
        self.sha256 = sha256
    }
}
