import HTTPKit
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
        Array(page(snapshot, window: window).readableBytesView)
    }

    /// What is written through the JSON writer is handed to the page's buffer once it holds this much.
    static let pieceBytes = 256 << 10
    /// A page's buffer this large is asked to be backed by huge pages (`PageMemory`).
    static let hugePageBytes = 4 << 20

    /// The page as it is sent: written straight into the response's buffer. Each entry's object is stored
    /// ready (`TimelineEntryJSON`): an array without annotations is copied from the snapshot once, into the
    /// buffer; the JSON writer writes only what is encoded here (the patient, the vital-sign groups, the
    /// posts…), a piece at a time. (Written into the writer whole, then copied into the response, a page of
    /// 100,000 entries was 16 MB copied twice more, each time into freshly mapped memory.)
    static func page(_ snapshot: TimelineSnapshot, window: TimelineWindow) -> ByteBuffer {
        let entryBytes = snapshot.sections.values.reduce(snapshot.ongoing.byteCount) { $0 + $1.byteCount }
        var page = PageMemory.buffer(capacity: 4096 + entryBytes + snapshot.vitalSignCount * 48)
        var json = JSONWriter(capacity: 4096)
        writeOpening(snapshot.patient, window: window, to: &json)

        for (key, type) in entryArrays {
            guard let entries = snapshot.sections[type], !entries.isEmpty else { continue }
            json.key(key)
            if entries.annotated.isEmpty {
                json.beginArray()
                page.writeBytes(json.takeBytes())
                for piece in entries.pieces { page.writeBytes(piece) }
                json.endArray()
            } else {
                AnnotationJSON.writeArray(entries, annotations: snapshot.annotations, alsoFrom: snapshot.alsoFrom, to: &json)
            }
            if json.bytes.count >= pieceBytes { page.writeBytes(json.takeBytes()) }
        }

        var vitals = VitalsWriting(VitalGroups.make(runs: snapshot.vitalSignRuns))
        while !vitals.write(to: &json, until: pieceBytes) { page.writeBytes(json.takeBytes()) }
        writeClosing(ongoing: snapshot.ongoing, posts: snapshot.posts, readings: snapshot.readings,
                     annotations: snapshot.annotations, alsoFrom: snapshot.alsoFrom, to: &json)
        page.writeBytes(json.takeBytes())
        return page
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
        private var offset = 0
        private static let readingPrefix = Array(Reading.idPrefix.utf8)

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
                    (field, offset) = (3, 0)
                case 3:
                    // Written from the ids' bytes: no `String` an id.
                    while offset < current.ids.count, json.bytes.count < bytes {
                        current.ids.withBytes(at: offset) { json.string(utf8: $0) }
                        offset += 1
                    }
                    guard offset == current.ids.count else { return false }
                    json.endArray()
                    // Which values the person took themselves (their readings, `r_` ids), parallel to `values`.
                    json.key("self_reported"); json.beginArray()
                    (field, offset) = (4, 0)
                default:
                    while offset < current.ids.count, json.bytes.count < bytes {
                        json.bool(current.ids.withBytes(at: offset) { $0.starts(with: Self.readingPrefix) })
                        offset += 1
                    }
                    guard offset == current.ids.count else { return false }
                    json.endArray()
                    json.endObject()
                    (group, field) = (group + 1, 0)
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
