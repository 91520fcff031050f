import HealthRecord

/// Entries of one timeline array as their JSON objects, already joined by commas: what goes between the
/// array's brackets. Built from each entry's stored `timeline_json`, without decoding it.
///
/// Kept in pieces of about `pieceBytes`: a long list (the `all` page of a 100,000-entry record holds 16 MB
/// of them) grows by a piece at a time, where one array would be copied whole into a larger one at each
/// doubling, into freshly mapped memory (two bytes touched for each byte kept). A short list is one piece.
public struct EntryList: Sendable, Equatable {
    /// See the type's comment: a piece of this size or more is not grown further; the next one begins.
    public static let pieceBytes = 512 << 10

    /// The joined objects, piece by piece: their bytes one after the other are `json`.
    public private(set) var pieces: [[UInt8]] = []
    /// The bytes of all pieces.
    public private(set) var byteCount = 0
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

    /// The separator piece between joined lists: one array for every join.
    private static let comma: [UInt8] = [UInt8(ascii: ",")]

    public var isEmpty: Bool { count == 0 }

    /// The joined objects in one array (the pieces copied together when there are several).
    public var json: [UInt8] { pieces.count == 1 ? pieces[0] : Array(pieces.joined()) }

    public static func == (a: EntryList, b: EntryList) -> Bool {
        a.count == b.count && a.byteCount == b.byteCount && a.annotated == b.annotated && a.json == b.json
    }

    /// Appends another list's objects. Its pieces are taken as they are, not copied: a page read in slices
    /// joins lists of megabytes (`Store.timelineSnapshot(inSlices:)`). The comma between the two lists is a
    /// piece of its own: written at the end of this list's last piece, it copied that piece whole (up to
    /// `pieceBytes`) whenever the piece was shared, as a read in slices' first part's are.
    public mutating func append(contentsOf other: EntryList) {
        guard !other.isEmpty else { return }
        if count > 0 {
            pieces.append(Self.comma)
            byteCount += 1
        }
        let base = byteCount
        annotated += other.annotated.map { Mark(entryID: $0.entryID, closingBrace: $0.closingBrace + base) }
        pieces += other.pieces
        byteCount += other.byteCount
        count += other.count
    }

    /// Appends one entry's JSON object; with `markedAs`, marked as carrying that entry id's extra members.
    public mutating func append(json object: some Collection<UInt8>, markedAs id: String? = nil) {
        if count > 0 { appendBytes(CollectionOfOne(UInt8(ascii: ","))) }
        appendBytes(object)
        count += 1
        if let id { mark(id) }
    }

    /// Marks the object just appended as carrying `id`'s extra members.
    private mutating func mark(_ id: String) {
        if pieces.last?.last == UInt8(ascii: "}") { annotated.append(Mark(entryID: id, closingBrace: byteCount - 1)) }
    }

    /// Appends bytes to the last piece, or to a new one when the last is full: an object is never split.
    private mutating func appendBytes(_ bytes: some Collection<UInt8>) {
        if pieces.isEmpty || (pieces[pieces.count - 1].count >= Self.pieceBytes
                              && pieces[pieces.count - 1].count + bytes.count > pieces[pieces.count - 1].capacity) {
            var piece: [UInt8] = []
            if !pieces.isEmpty { piece.reserveCapacity(max(Self.pieceBytes, bytes.count)) }
            pieces.append(piece)
        }
        pieces[pieces.count - 1].append(contentsOf: bytes)
        byteCount += bytes.count
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
