import HealthRecord
import Store

/// Encodes the timeline JSON of docs/api.md straight into bytes, in one pass over the snapshot.
public enum TimelinePayload {
    /// The entry arrays, in the order they are written. Each is present only when it is not empty.
    static let entryArrays: [(key: String, type: EntryType)] = [
        ("allergies", .allergy), ("conditions", .condition), ("results", .result), ("encounters", .encounter),
        ("immunizations", .immunization), ("medications", .medication), ("procedures", .procedure),
        ("social_history", .socialHistory), ("care_goals", .careGoal), ("medical_equipment", .medicalEquipment),
    ]

    public static func encode(_ snapshot: TimelineSnapshot, window: TimelineWindow) -> [UInt8] {
        let entryBytes = snapshot.sections.values.reduce(snapshot.ongoing.json.count) { $0 + $1.json.count }
        var json = JSONWriter(capacity: 4096 + entryBytes + snapshot.vitalSigns.count * 48)
        writeOpening(snapshot.patient, window: window, to: &json)

        // Each entry's object is stored ready (`TimelineEntryJSON`): the arrays are copied, not encoded.
        for (key, type) in entryArrays {
            guard let entries = snapshot.sections[type], !entries.isEmpty else { continue }
            json.key(key)
            AnnotationJSON.writeArray(entries, annotations: snapshot.annotations, alsoFrom: snapshot.alsoFrom, to: &json)
        }

        writeVitals(VitalGroups.make(snapshot.vitalSigns), to: &json)
        writeClosing(ongoing: snapshot.ongoing, posts: snapshot.posts, readings: snapshot.readings,
                     annotations: snapshot.annotations, alsoFrom: snapshot.alsoFrom, to: &json)
        return json.bytes
    }

    /// `{`, the window and the patient. (The page in parts, `TimelineStream`, writes the same pieces.)
    static func writeOpening(_ patient: Patient, window: TimelineWindow, to json: inout JSONWriter) {
        json.beginObject()
        json.key("start_date"); json.int(window.start)
        json.key("end_date"); json.int(window.end)
        json.key("patient"); writePatient(patient, to: &json)
    }

    static func writeVitals(_ groups: [VitalGroup], to json: inout JSONWriter) {
        var writing = VitalsWriting(groups)
        _ = writing.write(to: &json, until: .max)
    }

    /// The `vitals` array written a piece at a time (a long record's groups are tens of MB of JSON): each
    /// call writes until `json` holds `bytes`, or to the end (then true).
    struct VitalsWriting {
        private let groups: [VitalGroup]
        private var group = -1
        private var field = 0
        private var ids: AnyIterator<String>?
        private var offset = 0

        init(_ groups: [VitalGroup]) { self.groups = groups }

        mutating func write(to json: inout JSONWriter, until bytes: Int) -> Bool {
            if group < 0 {
                json.key("vitals")
                json.beginArray()
                group = 0
            }
            while group < groups.count {
                let current = groups[group]
                switch field {
                case 0:
                    json.beginObject()
                    json.key("description"); json.string(current.description)
                    json.key("values"); json.beginArray()
                    (field, offset) = (1, 0)
                case 1:
                    while offset < current.values.count, json.bytes.count < bytes { json.number(current.values[offset]); offset += 1 }
                    guard offset == current.values.count else { return false }
                    json.endArray()
                    json.key("units"); json.string(current.units)
                    json.key("dates"); json.beginArray()
                    (field, offset) = (2, 0)
                case 2:
                    while offset < current.dates.count, json.bytes.count < bytes { json.int(current.dates[offset]); offset += 1 }
                    guard offset == current.dates.count else { return false }
                    json.endArray()
                    json.key("ids"); json.beginArray()
                    (field, ids) = (3, current.ids.makeIterator())
                case 3:
                    while json.bytes.count < bytes, let id = ids?.next() { json.string(id) }
                    guard json.bytes.count < bytes else { return false }
                    json.endArray()
                    // Which values the person took themselves (their readings, `r_` ids), parallel to `values`.
                    json.key("self_reported"); json.beginArray()
                    (field, ids) = (4, current.ids.makeIterator())
                default:
                    while json.bytes.count < bytes, let id = ids?.next() { json.bool(Reading.isReadingID(id)) }
                    guard json.bytes.count < bytes else { return false }
                    json.endArray()
                    json.endObject()
                    (group, field, ids) = (group + 1, 0, nil)
                }
            }
            json.endArray()
            return true
        }
    }

    /// `ongoing`, the posts, the readings, and `}`.
    static func writeClosing(ongoing: EntryList, posts: [TimelinePost], readings: [Reading], annotations: [String: Annotation],
                             alsoFrom: [String: [String]], to json: inout JSONWriter) {
        json.key("ongoing")
        AnnotationJSON.writeArray(ongoing, annotations: annotations, alsoFrom: alsoFrom, to: &json)
        PostsEncoding.write(posts, to: &json)
        json.key("readings"); ReadingJSON.writeArray(readings, to: &json)
        json.endObject()
    }

    static func writePatient(_ patient: Patient, to json: inout JSONWriter) {
        json.beginObject()
        json.key("id"); json.string(patient.id)
        json.key("name"); json.string(patient.shownName)
        json.key("gender"); json.string(patient.gender)
        json.key("birthdate"); json.int(patient.birthdate)
        ResultDetailJSON.writeDeceased(patient, to: &json)
        json.endObject()
    }
}
