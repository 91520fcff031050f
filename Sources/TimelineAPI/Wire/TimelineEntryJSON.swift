import HealthRecord
import Store

/// An entry as one object of the timeline's entry arrays and of `ongoing` (docs/api.md, "The timeline
/// contract"). The store keeps these bytes beside each entry (`entries.timeline_json`), encoded once at
/// import with this encoder, so that a timeline read copies them instead of encoding twelve columns on
/// every request. Change the shape, and raise `version`: the store then re-encodes every entry when it
/// is next opened.
public struct TimelineEntryJSON: EntryEncoder {
    public let version = 2

    public init() {}

    public func encode(_ entry: StoredEntry) -> [UInt8] {
        var json = JSONWriter(capacity: 256)
        Self.write(entry, to: &json)
        return json.bytes
    }

    static func write(_ entry: StoredEntry, to json: inout JSONWriter) {
        json.beginObject()
        json.key("id"); json.string(entry.id)
        json.key("description"); json.string(entry.description)
        json.key("date"); json.int(entry.date)
        json.key("measurement")
        json.beginObject()
        json.key("value"); json.number(entry.value)
        json.key("unit"); json.string(entry.units)
        if let text = entry.textValue { json.key("text"); json.string(text) }
        json.endObject()
        json.key("type"); json.string(entry.type.rawValue)
        json.key("start_date"); json.int(entry.startTime)
        json.key("end_date"); json.int(entry.endTime)
        json.key("status"); json.string(entry.status)
        json.key("codes"); json.raw(entry.codesJSON)
        ResultDetailJSON.write(entry, to: &json)
        json.endObject()
    }
}

extension EntryList {
    /// Entries given whole, encoded now: for tests and tools (the daemon copies stored bytes).
    public init(_ entries: [StoredEntry], encoder: TimelineEntryJSON = TimelineEntryJSON()) {
        self.init()
        for entry in entries { append(json: encoder.encode(entry)) }
    }
}

extension TimelineSnapshot {
    /// A snapshot of entries given whole (in date order), encoded now: for tests and tools.
    public init(patient: Patient, entries: [StoredEntry], ongoing: [StoredEntry], posts: [TimelinePost]) {
        var sections: [EntryType: EntryList] = [:]
        var vitalSigns: [StoredEntry] = []
        let encoder = TimelineEntryJSON()
        for entry in entries {
            if entry.type == .vitalSign {
                vitalSigns.append(entry)
            } else {
                sections[entry.type, default: EntryList()].append(json: encoder.encode(entry))
            }
        }
        self.init(patient: patient, sections: sections, vitalSigns: vitalSigns, ongoing: EntryList(ongoing), posts: posts)
    }
}

extension Store.Options {
    /// What every hreaderd process opens its store with: the timeline's entry encoder, so that imports
    /// store each entry's JSON and a store written by an older contract is re-encoded at open.
    public static var timeline: Store.Options { Store.Options(entryEncoder: TimelineEntryJSON()) }
}
