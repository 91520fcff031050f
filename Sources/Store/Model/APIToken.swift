import HealthRecord

/// An API token as listed: never the token itself, which is shown once at creation and stored only as
/// its SHA-256.
public struct APIToken: Sendable, Equatable {
    public var id: String
    public var name: String
    public var createdAt: Int64
    public var lastUsedAt: Int64?
}
