/// An entry as one object of the timeline's entry arrays and of `ongoing` (DESIGN.md, "The timeline
/// contract"). Encoded once, when the entry is stored (`entries.timeline_json`), so that a timeline read
/// copies each entry's bytes instead of reading twelve columns and encoding them on every request.
public enum TimelineEntryJSON {
    public static func encode(_ entry: StoredEntry) -> [UInt8] {
        var json = JSONWriter(capacity: 256)
        write(entry, to: &json)
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
        json.endObject()
    }
}

extension StoredEntry {
    /// The stored form of an imported entry, with its codes as canonical JSON.
    init(_ entry: Entry, codesJSON: String) {
        self.init(id: entry.id, type: entry.type, description: entry.description, date: entry.date, time: entry.time,
                  startTime: entry.startTime, endTime: entry.endTime, status: entry.status, value: entry.value,
                  textValue: entry.textValue, units: entry.units, codesJSON: codesJSON)
    }
}
