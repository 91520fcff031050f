import Store

/// One resource as read from a file: its type, id and members, and its JSON exactly as the source wrote
/// it (compact), which is what the store keeps.
public struct FHIRResource: Sendable {
    public let type: String
    public let id: String?
    /// The bundle entry's `fullUrl` (`urn:uuid:…` in transaction bundles), when it came in a bundle.
    public let fullUrl: String?
    let object: JSONObject
    /// Compact JSON, byte for byte the source's but for whitespace between tokens.
    public let raw: String
    /// Where it was read: `file.json#entry[12]`, `Patient.000.ndjson:3`.
    public let origin: String

    /// How entries and messages name the resource: `Observation/123`; a resource without an id is named
    /// by its `fullUrl`, else by a digest of its content, so that the same resource read again (from
    /// another path, at another place in the file) keeps its entries' ids; an edit makes it another one.
    public var key: String {
        if let id, !id.isEmpty { return type + "/" + id }
        if let fullUrl, !fullUrl.isEmpty { return type + "/" + fullUrl }
        return type + "#" + String(StableID.make("c", [raw]).dropFirst(2))
    }

    var element: FHIRElement { FHIRElement(object, resource: key) }
}
