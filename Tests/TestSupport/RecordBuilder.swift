import HealthRecord

// The records tests are made of, built one way: a patient with defaults, entries by type with defaults, and
// the same record as RHEx record JSON for the tests that read a file or a download.
//
//     let record = PatientRecord.record("aud", name: "Secret Patient", birthdate: 0, entries: [
//         .entry(.condition, "Asthma", id: "e_1", start: 1_000_000, status: "active"),
//         .entry(.result, "Potassium", at: 1_293_900_000, value: 4.1, units: "mmol/L", codes: ["LOINC": ["2823-3"]]),
//     ])
//     let json = record.rhexJSON()
//
// What a test does not give is absent: no date, no value, no codes, no source JSON (`{}`).

extension PatientRecord {
    /// A patient's record. The name is split as a source gives it: the first word is the first name, the
    /// rest the last name ("Ada Lovelace": "Ada", "Lovelace").
    public static func record(_ recordID: String = "rec-1", name: String = "Test Patient", gender: String? = nil,
                              birthdate: Int64? = nil, entries: [Entry] = []) -> PatientRecord {
        let words = name.split(separator: " ", maxSplits: 1).map(String.init)
        return PatientRecord(recordID: recordID, firstName: words.first, lastName: words.count > 1 ? words[1] : nil, name: name,
                             gender: gender, birthdate: birthdate, entries: entries)
    }

    /// The record as RHEx record JSON, compact: `_id`, `first`, `last`, `gender`, `birthdate`, then the
    /// entries in the section of their type (sections in the order their first entry comes), each with its
    /// `_id` (the entry's `sourceID`; none without one), `description`, `time`, `start_time`, `end_time`,
    /// `status`, `value` (`{"scalar":"4.1","units":"mmol/L"}`, the text of a non-numeric value as its
    /// scalar) and `codes`. `extra` is written as it is before the closing brace (`"pad":"…"`).
    ///
    /// A parser gives entries ids of its own (from the section and the `_id`), not the entries' `id`s.
    public func rhexJSON(extra: String? = nil) -> String {
        var json = JSONWriter()
        json.beginObject()
        json.key("_id"); json.string(recordID)
        if let firstName { json.key("first"); json.string(firstName) }
        if let lastName { json.key("last"); json.string(lastName) }
        if let gender { json.key("gender"); json.string(gender) }
        if let birthdate { json.key("birthdate"); json.int(birthdate) }
        var types: [EntryType] = []
        for entry in entries where !types.contains(entry.type) { types.append(entry.type) }
        for type in types {
            json.key(type.section)
            json.beginArray()
            for entry in entries where entry.type == type { entry.writeRHEx(to: &json) }
            json.endArray()
        }
        if let extra { json.raw(extra) }
        json.endObject()
        return json.string
    }
}

extension Entry {
    /// An entry of `type`. Without an `id`, one is derived from everything the entry holds, so that two
    /// entries that differ get different ids; give ids to entries that are alike, or that a test names.
    public static func entry(_ type: EntryType, _ description: String? = nil, id: String? = nil,
                             at time: Int64? = nil, start: Int64? = nil, end: Int64? = nil, status: String? = nil,
                             value: Double? = nil, text: String? = nil, units: String? = nil,
                             codes: [String: [String]] = [:], sourceID: String? = nil, raw: String = "{}") -> Entry {
        let derived = StableID.make("e", [
            type.rawValue, description ?? "", time.map { "\($0)" } ?? "", start.map { "\($0)" } ?? "", end.map { "\($0)" } ?? "",
            status ?? "", value.map { "\($0)" } ?? "", text ?? "", units ?? "", JSONWriter.codes(codes), sourceID ?? "",
        ])
        return Entry(id: id ?? derived, type: type, description: description, time: time, startTime: start, endTime: end,
                     status: status, value: value, textValue: text, units: units, codes: codes, sourceID: sourceID, rawJSON: raw)
    }

    /// The entry as the store hands it to the timeline and the modules: dated by its first date, its codes as
    /// canonical JSON.
    public var stored: StoredEntry {
        StoredEntry(id: id, type: type, description: description, date: date, time: time, startTime: startTime, endTime: endTime,
                    status: status, value: value, textValue: textValue, units: units, codesJSON: JSONWriter.codes(codes),
                    referenceRange: referenceRange, interpretation: interpretation, sourceNote: sourceNote)
    }

    fileprivate func writeRHEx(to json: inout JSONWriter) {
        json.beginObject()
        if let sourceID { json.key("_id"); json.string(sourceID) }
        if let description { json.key("description"); json.string(description) }
        if let time { json.key("time"); json.int(time) }
        if let startTime { json.key("start_time"); json.int(startTime) }
        if let endTime { json.key("end_time"); json.int(endTime) }
        if let status { json.key("status"); json.string(status) }
        if let scalar = value.map(Self.scalarText) ?? textValue {
            json.key("value")
            json.beginObject()
            json.key("scalar"); json.string(scalar)
            if let units { json.key("units"); json.string(units) }
            json.endObject()
        }
        if !codes.isEmpty { json.key("codes"); json.raw(JSONWriter.codes(codes)) }
        json.endObject()
    }

    /// RHEx writes a measurement's scalar as text: "140", "4.1".
    private static func scalarText(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

extension [Entry] {
    /// `count` entries for tests that need many and none in particular: `e_0`, `e_1`, …, a condition and a
    /// result valued by its number in turn, a day apart from 1_000_000, described "`marker` 0", "`marker` 1", …
    /// (a word a test can look for), each with a SNOMED-CT code and its own source JSON (`{"n":0}`).
    public static func numbered(_ count: Int, marker: String = "marker") -> [Entry] {
        (0..<count).map { (i: Int) -> Entry in
            let type: EntryType = i % 2 == 0 ? .condition : .result
            let value: Double? = i % 2 == 0 ? nil : Double(i)
            return .entry(type, "\(marker) \(i)", id: "e_\(i)", at: 1_000_000 + Int64(i) * 86_400, value: value,
                          codes: ["SNOMED-CT": ["\(i)"]], raw: #"{"n":\#(i)}"#)
        }
    }
}

extension [StoredEntry] {
    /// Entries as the store hands them over (`Entry.stored`), for tests of what reads stored entries.
    public static func stored(_ entries: [Entry]) -> [StoredEntry] { entries.map(\.stored) }
}

extension Patient {
    /// A patient as the store lists them, for tests that hand one to the modules or the payload encoder.
    public static func patient(id: String = "p_test", recordID: String = "r", name: String = "Test Person", gender: String? = nil,
                               birthdate: Int64? = nil, entryCount: Int = 0) -> Patient {
        Patient(id: id, sourceName: "files", recordID: recordID, name: name, gender: gender, birthdate: birthdate,
                entryCount: entryCount, revision: 1)
    }
}
