import HealthRecord

/// Entries of one timeline array as their JSON objects, already joined by commas: what goes between the
/// array's brackets. Built from each entry's stored `timeline_json`, without decoding it.
public struct EntryList: Sendable, Equatable {
    public private(set) var json: [UInt8] = []
    public private(set) var count = 0
    /// The entries that carry an annotation: where each object's closing brace is, so that the wire
    /// format can write the annotation into it. Empty for a patient without annotations (the usual case).
    public private(set) var annotated: [Mark] = []

    public struct Mark: Sendable, Equatable {
        public var entryID: String
        /// The offset in `json` of the object's closing `}`.
        public var closingBrace: Int
    }

    public init() {}

    public var isEmpty: Bool { count == 0 }

    public mutating func append(contentsOf other: EntryList) {
        guard !other.isEmpty else { return }
        if count > 0 { json.append(UInt8(ascii: ",")) }
        let base = json.count
        annotated += other.annotated.map { Mark(entryID: $0.entryID, closingBrace: $0.closingBrace + base) }
        json += other.json
        count += other.count
    }

    /// Appends one entry's JSON object; with `markedAs`, marked as carrying that entry id's extra members.
    public mutating func append(json object: some Collection<UInt8>, markedAs id: String? = nil) {
        if count > 0 { json.append(UInt8(ascii: ",")) }
        json.append(contentsOf: object)
        count += 1
        if let id { mark(id) }
    }

    /// Marks the object just appended as carrying `id`'s extra members.
    private mutating func mark(_ id: String) {
        if json.last == UInt8(ascii: "}") { annotated.append(Mark(entryID: id, closingBrace: json.count - 1)) }
    }

    /// Appends the entry's `timeline_json` from `column` of `row`, straight from SQLite's buffer (no String).
    /// With `annotatedID`, the entry is marked as carrying that id's annotation.
    mutating func append(storedJSONOf row: Row, column: Int, annotatedID: String? = nil) throws(StoreError) {
        let appended = row.withText(column) { json -> Bool in
            guard !json.isEmpty else { return false }
            append(json: json)
            return true
        }
        guard appended else { throw StoreError.invalidInput("the store holds an entry without its timeline JSON") }
        if let annotatedID { mark(annotatedID) }
    }
}
