import Store

/// Encodes the timeline JSON of DESIGN.md straight into bytes, in one pass over the snapshot.
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
        json.key("vitals")
        json.beginArray()
        for group in groups {
            json.beginObject()
            json.key("description"); json.string(group.description)
            json.key("values"); json.beginArray(); for v in group.values { json.number(v) }; json.endArray()
            json.key("units"); json.string(group.units)
            json.key("dates"); json.beginArray(); for d in group.dates { json.int(d) }; json.endArray()
            json.key("ids"); json.beginArray(); for id in group.ids { json.string(id) }; json.endArray()
            // Which values the person took themselves (their readings, `r_` ids), parallel to `values`.
            json.key("self_reported"); json.beginArray(); for id in group.ids { json.bool(Reading.isReadingID(id)) }; json.endArray()
            json.endObject()
        }
        json.endArray()
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
        json.endObject()
    }
}
