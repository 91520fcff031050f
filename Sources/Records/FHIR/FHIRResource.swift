import HealthRecord

/// One resource as read from a file: its type, id and the references that say whose it is, and its JSON
/// exactly as the source wrote it (compact), which is what the store keeps.
///
/// A resource read from a file holds no tree of its members: the file's reading checks its JSON whole and
/// notes where the resource lies, and its members are parsed when a mapping reads them (`parsed()`, into a
/// `JSONTape`). A 100,000-resource bundle is then a list of places in the file, not half a gigabyte of
/// values held from the reading to the write.
///
/// A class: a resource is handed around (the index, its patient's group, each entry's mapping) and
/// never changed, so it is shared by one reference instead of copied.
public final class FHIRResource: Sendable {
    public let type: String
    public let id: String?
    /// The bundle entry's `fullUrl` (`urn:uuid:…` in transaction bundles), when it came in a bundle.
    public let fullUrl: String?
    /// How entries and messages name the resource: `Observation/123`; a resource without an id is named
    /// by its `fullUrl`, else by a digest of its content, so that the same resource read again (from
    /// another path, at another place in the file) keeps its entries' ids; an edit makes it another one.
    public let key: String
    /// The reference that says whose the resource is, read with it.
    let patientReference: FHIRPatientReference?
    private let body: Body
    private let place: Place

    /// Where a resource was read, kept as parts: the text is made only for a message.
    enum Place: Sendable {
        case entry(file: String, index: Int)
        case line(file: String, number: Int)
        case file(String)
        case contained(in: String, id: String)
    }

    /// The resource's members: parsed already (the object at `node` of `tape`), or where they lie in the bytes
    /// of the file read.
    private enum Body: Sendable {
        case parsed(JSONTape, node: Int, raw: String)
        /// `isCompact`: the reading skipped no whitespace between the resource's tokens, so its bytes are
        /// its compact JSON as they are (most servers' bundles and every bulk export's NDJSON).
        case source(FHIRSourceBytes, Range<Int>, isCompact: Bool)
    }

    /// A resource whose JSON lies at `range` of `source` (checked whole by the reading).
    convenience init(type: String, id: String?, fullUrl: String?, patientReference: FHIRPatientReference?, source: FHIRSourceBytes,
         range: Range<Int>, isCompact: Bool, place: Place) {
        self.init(type: type, id: id, fullUrl: fullUrl, patientReference: patientReference,
                  body: .source(source, range, isCompact: isCompact), place: place,
                  key: Self.key(type: type, id: id, fullUrl: fullUrl, raw: { source.compact(range, isCompact: isCompact) }))
    }

    /// A resource whose members are parsed already (a `contained` one): the object at `node` of `tape`.
    convenience init(type: String, id: String?, fullUrl: String?, tape: JSONTape, node: Int, raw: String, place: Place) {
        self.init(type: type, id: id, fullUrl: fullUrl, patientReference: FHIRPatientReference.first(in: tape, object: node),
                  body: .parsed(tape, node: node, raw: raw),
                  place: place, key: Self.key(type: type, id: id, fullUrl: fullUrl, raw: { raw }))
    }

    private init(type: String, id: String?, fullUrl: String?, patientReference: FHIRPatientReference?, body: Body,
                 place: Place, key: String) {
        self.type = type
        self.id = id
        self.fullUrl = fullUrl
        self.patientReference = patientReference
        self.body = body
        self.place = place
        self.key = key
    }

    private static func key(type: String, id: String?, fullUrl: String?, raw: () -> String) -> String {
        if let id, !id.isEmpty { return type + "/" + id }
        if let fullUrl, !fullUrl.isEmpty { return type + "/" + fullUrl }
        return type + "#" + String(StableID.make("c", [raw()]).dropFirst(2))
    }

    /// Compact JSON, byte for byte the source's but for whitespace between tokens.
    public var raw: String {
        switch body {
        case let .parsed(_, _, raw): return raw
        case let .source(source, range, isCompact): return source.compact(range, isCompact: isCompact)
        }
    }

    /// The same resource with its members parsed and its compact JSON made, once: what a mapping reads.
    func parsed() -> FHIRResource {
        guard case let .source(source, range, isCompact) = body else { return self }
        return FHIRResource(type: type, id: id, fullUrl: fullUrl, patientReference: patientReference,
                            body: .parsed(source.tape(range), node: 0, raw: source.compact(range, isCompact: isCompact)),
                            place: place, key: key)
    }

    /// Where it was read: `file.json#entry[12]`, `Patient.000.ndjson:3`.
    public var origin: String { place.description }

    /// The same resource as a bundle entry with its `fullUrl`.
    func with(fullUrl: String?) -> FHIRResource {
        FHIRResource(type: type, id: id, fullUrl: fullUrl, patientReference: patientReference, body: body, place: place,
                     key: Self.key(type: type, id: id, fullUrl: fullUrl, raw: { raw }))
    }

    /// The resource's members, to read (parsed now when the resource was read from a file and not `parsed()`).
    var element: FHIRElement {
        switch body {
        case let .parsed(tape, node, _): return FHIRElement(tape, node: node, resource: key)
        case let .source(source, range, _): return FHIRElement(source.tape(range), node: 0, resource: key)
        }
    }
}

extension FHIRResource.Place: CustomStringConvertible {
    var description: String {
        switch self {
        case let .entry(file, index): return "\(file)#entry[\(index)]"
        case let .line(file, number): return "\(file):\(number)"
        case let .file(file): return file
        case let .contained(resource, id): return "\(resource)#\(id)"
        }
    }
}

/// The bytes of one file read, which its resources point into.
final class FHIRSourceBytes: Sendable {
    let bytes: [UInt8]
    let maxDepth: Int

    init(_ bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// The object at `range`, which the file's reading checked: parsing it again cannot fail, and an empty
    /// object stands in if it somehow did.
    func tape(_ range: Range<Int>) -> JSONTape {
        if let tape = try? JSONTape.parse(bytes, range: range, maxDepth: maxDepth), tape.nodes.first?.kind == .object { return tape }
        return JSONTape.emptyObject
    }

    /// The compact JSON of the value at `range`; `isCompact`: it is that already, and is copied as it is.
    func compact(_ range: Range<Int>, isCompact: Bool) -> String {
        bytes.withUnsafeBufferPointer { buffer in
            let slice = UnsafeBufferPointer(rebasing: buffer[range])
            return isCompact ? String(decoding: slice, as: UTF8.self) : JSONCompaction.string(slice)
        }
    }
}
