import Store

/// Encodes the timeline JSON of DESIGN.md straight into bytes, in one pass over the snapshot.
public enum TimelinePayload {
    /// The entry arrays, in the order they are written. Each is present only when it is not empty.
    static let entryArrays: [(key: String, type: EntryType)] = [
        ("allergies", .allergy), ("conditions", .condition), ("results", .result), ("encounters", .encounter),
        ("immunizations", .immunization), ("medications", .medication), ("procedures", .procedure),
    ]

    public static func encode(_ snapshot: TimelineSnapshot, window: TimelineWindow) -> [UInt8] {
        var json = JSONWriter(capacity: 4096 + snapshot.entries.count * 256)
        json.beginObject()
        json.key("start_date"); json.int(window.start)
        json.key("end_date"); json.int(window.end)
        json.key("patient"); writePatient(snapshot.patient, to: &json)

        var byType: [EntryType: [StoredEntry]] = [:]
        for entry in snapshot.entries { byType[entry.type, default: []].append(entry) }
        for (key, type) in entryArrays {
            guard let entries = byType[type], !entries.isEmpty else { continue }
            json.key(key)
            json.beginArray()
            for entry in entries { writeEntry(entry, to: &json) }
            json.endArray()
        }

        json.key("vitals")
        json.beginArray()
        for group in VitalGroups.make(byType[.vitalSign] ?? []) {
            json.beginObject()
            json.key("description"); json.string(group.description)
            json.key("values"); json.beginArray(); for v in group.values { json.number(v) }; json.endArray()
            json.key("units"); json.string(group.units)
            json.key("dates"); json.beginArray(); for d in group.dates { json.int(d) }; json.endArray()
            json.key("ids"); json.beginArray(); for id in group.ids { json.string(id) }; json.endArray()
            json.endObject()
        }
        json.endArray()

        json.key("ongoing")
        json.beginArray()
        for entry in snapshot.ongoing { writeEntry(entry, to: &json) }
        json.endArray()

        PostsEncoding.write(snapshot.posts, to: &json)
        json.endObject()
        return json.bytes
    }

    static func writePatient(_ patient: Patient, to json: inout JSONWriter) {
        json.beginObject()
        json.key("id"); json.string(patient.id)
        json.key("name"); json.string(patient.name)
        json.key("gender"); json.string(patient.gender)
        json.key("birthdate"); json.int(patient.birthdate)
        json.endObject()
    }

    static func writeEntry(_ entry: StoredEntry, to json: inout JSONWriter) {
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
