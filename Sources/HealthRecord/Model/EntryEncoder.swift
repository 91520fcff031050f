/// Turns an entry into the bytes a timeline read copies (`entries.timeline_json`). The store keeps
/// those bytes beside the entry but does not know their shape: the wire format belongs to the API,
/// which hands its encoder to the store when it opens it (`Store.Options.entryEncoder`).
///
/// `version` names the shape. A store whose entries were encoded by another version is re-encoded
/// when it is opened (`EntryJSONRefresh`), so a change to the contract needs no migration, and
/// migrations never call application code.
public protocol EntryEncoder: Sendable {
    var version: Int { get }
    func encode(_ entry: StoredEntry) -> [UInt8]
}

extension StoredEntry {
    /// The stored form of an imported entry, with its codes as canonical JSON.
    package init(_ entry: Entry, codesJSON: String) {
        self.init(id: entry.id, type: entry.type, description: entry.description, date: entry.date, time: entry.time,
                  startTime: entry.startTime, endTime: entry.endTime, status: entry.status, value: entry.value,
                  textValue: entry.textValue, units: entry.units, codesJSON: codesJSON,
                  referenceRange: entry.referenceRange, interpretation: entry.interpretation, sourceNote: entry.sourceNote)
    }
}
