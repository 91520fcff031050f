/// Entries of one timeline array as their JSON objects, already joined by commas: what goes between the
/// array's brackets. Built from each entry's stored `timeline_json`, without decoding it.
public struct EntryList: Sendable, Equatable {
    public private(set) var json: [UInt8] = []
    public private(set) var count = 0

    public init() {}

    public var isEmpty: Bool { count == 0 }

    public mutating func append(contentsOf other: EntryList) {
        guard !other.isEmpty else { return }
        if count > 0 { json.append(UInt8(ascii: ",")) }
        json += other.json
        count += other.count
    }

    /// Appends one entry's JSON object.
    public mutating func append(json object: some Collection<UInt8>) {
        if count > 0 { json.append(UInt8(ascii: ",")) }
        json.append(contentsOf: object)
        count += 1
    }

    /// Appends the entry's `timeline_json` from `column` of `row`, straight from SQLite's buffer (no String).
    mutating func append(storedJSONOf row: Row, column: Int) throws(StoreError) {
        let appended = row.withText(column) { json -> Bool in
            guard !json.isEmpty else { return false }
            append(json: json)
            return true
        }
        guard appended else { throw StoreError.invalidInput("the store holds an entry without its timeline JSON") }
    }
}
