import Store

/// One resource as read from a file: its type, id and members, and its JSON exactly as the source wrote
/// it (compact), which is what the store keeps.
///
/// A class: a resource is handed around (the index, its patient's group, each entry's mapping) and
/// never changed, so it is shared by one reference instead of copied with its six fields.
public final class FHIRResource: Sendable {
    public let type: String
    public let id: String?
    /// The bundle entry's `fullUrl` (`urn:uuid:…` in transaction bundles), when it came in a bundle.
    public let fullUrl: String?
    let object: JSONObject
    /// Compact JSON, byte for byte the source's but for whitespace between tokens.
    public let raw: String
    /// How entries and messages name the resource: `Observation/123`; a resource without an id is named
    /// by its `fullUrl`, else by a digest of its content, so that the same resource read again (from
    /// another path, at another place in the file) keeps its entries' ids; an edit makes it another one.
    public let key: String
    private let place: Place

    /// Where a resource was read, kept as parts: the text is made only for a message.
    enum Place: Sendable {
        case entry(file: String, index: Int)
        case line(file: String, number: Int)
        case file(String)
        case contained(in: String, id: String)
    }

    init(type: String, id: String?, fullUrl: String?, object: JSONObject, raw: String, place: Place) {
        self.type = type
        self.id = id
        self.fullUrl = fullUrl
        self.object = object
        self.raw = raw
        self.place = place
        if let id, !id.isEmpty {
            key = type + "/" + id
        } else if let fullUrl, !fullUrl.isEmpty {
            key = type + "/" + fullUrl
        } else {
            key = type + "#" + String(StableID.make("c", [raw]).dropFirst(2))
        }
    }

    /// Where it was read: `file.json#entry[12]`, `Patient.000.ndjson:3`.
    public var origin: String {
        switch place {
        case let .entry(file, index): return "\(file)#entry[\(index)]"
        case let .line(file, number): return "\(file):\(number)"
        case let .file(file): return file
        case let .contained(resource, id): return "\(resource)#\(id)"
        }
    }

    /// The same resource as a bundle entry with its `fullUrl`.
    func with(fullUrl: String?) -> FHIRResource {
        FHIRResource(type: type, id: id, fullUrl: fullUrl, object: object, raw: raw, place: place)
    }

    var element: FHIRElement { FHIRElement(object, resource: key) }
}
