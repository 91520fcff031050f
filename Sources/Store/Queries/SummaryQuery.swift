import HealthRecord

/// The summary's one read (`SummarySource`): only the entry types its modules read, in one snapshot.
enum SummaryQuery {
    /// An entry as the summary reads it, and an allergy's source (for its reaction and severity). The id and
    /// the date are columns 0 and 3.
    static let columns = "\(TimelineWindowQuery.storedEntryColumns), CASE WHEN type = 'allergy' THEN raw END AS allergy_raw"

    /// `types` are held in the source; `measured` are handed to `sink` one by one (a type may be both).
    static func read(patientID: String, types: Set<EntryType>, measured: Set<EntryType> = [], sink: (any StoredEntrySink)? = nil,
                     readings withReadings: Bool, posts withPosts: Bool, in db: Database) throws -> SummarySource? {
        let person = try LinkQueries.person(of: patientID, in: db)
        guard let patient = try db.row("SELECT \(Store.patientColumns) WHERE p.id = ?", [person.head], Store.patient) else { return nil }
        var annotations: [String: Annotation] = [:]
        for member in person.members {
            for (id, annotation) in try AnnotationQueries.byEntry(patientID: member, in: db) where annotations[id] == nil {
                annotations[id] = annotation
            }
        }
        var entries: [EntryType: [StoredEntry]] = [:]
        var allergySources: [String: String] = [:]
        var seen: Set<String> = []
        let handed = sink == nil ? [] : measured
        let read = types.union(handed).sorted { $0.rawValue < $1.rawValue }
        if !read.isEmpty {
            for member in person.members {
                // In (date, id) order: each type's range of the index, merged (no sort of the record in memory).
                try EntriesByDateQuery.forEach(columns: Self.columns, types: read,
                                               patientID: member, in: db) { row in
                    let entry = try TimelineWindowQuery.storedEntry(row)
                    if annotations[entry.id]?.struck == true { return }
                    // A fact two linked sources both hold counts once.
                    guard person.members.count == 1 || seen.insert(Self.factKey(entry)).inserted else { return }
                    if handed.contains(entry.type) { sink?.take(entry) }
                    guard types.contains(entry.type) else { return }
                    entries[entry.type, default: []].append(entry)
                    if let raw = row.stringOrNil(TimelineWindowQuery.storedEntryColumnCount) { allergySources[entry.id] = raw }
                }
            }
            if person.members.count > 1 {
                for type in entries.keys { entries[type]?.sort { ($0.date ?? .min, $0.id) < ($1.date ?? .min, $1.id) } }
            }
        }
        var readings: [Reading] = []
        var posts: [TimelinePost] = []
        for member in person.members {
            if withReadings { readings += try ReadingQueries.readings(patientID: member, in: db) }
            if withPosts { posts += try TimelinePostQueries.posts(patientID: member, from: .min, to: .max, in: db) }
        }
        readings.sort { ($0.takenAt, $0.id) < ($1.takenAt, $1.id) }
        posts.sort { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        return SummarySource(patient: patient, entries: entries, allergySources: allergySources, readings: readings, posts: posts,
                             annotations: annotations)
    }

    static func factKey(_ entry: StoredEntry) -> String {
        "\(entry.type.rawValue)|\(entry.codesJSON)|\(entry.description ?? "")|\(entry.date.map(String.init) ?? "")|\(entry.value.map { "\($0)" } ?? "")"
    }
}

/// Which summary modules a patient shows, in order (`patient_modules`); nil when the person never chose.
enum ModuleChoiceQueries {
    static func choice(patientID: String, in db: Database) throws -> [String]? {
        guard let json = try db.scalar("SELECT modules FROM patient_modules WHERE patient_id = ?", [patientID], as: String.self) else {
            return nil
        }
        return StringListJSON.decode(json)
    }
}

extension Store {
    /// The summary's read for the person `patientID` belongs to; nil when there is no such patient.
    /// The entries of `measured` types go to `sink` as they are read (see `StoredEntrySink`), not into the source.
    public func summarySource(patientID: String, types: Set<EntryType>, measured: Set<EntryType> = [], sink: (any StoredEntrySink)? = nil,
                              readings: Bool, posts: Bool) async throws(StoreError) -> SummarySource? {
        try await read { db in
            try SummaryQuery.read(patientID: patientID, types: types, measured: measured, sink: sink, readings: readings, posts: posts, in: db)
        }
    }

    /// The summary modules the person chose for `patientID` (kept on the person's head), in order; nil when
    /// they never chose. `.notFound` when there is no such patient.
    public func moduleChoice(patientID: String) async throws(StoreError) -> [String]? {
        try await read { db in
            guard try db.scalar("SELECT 1 FROM patients WHERE id = ?", [patientID], as: Int64.self) != nil else {
                throw StoreError.notFound("patient \(patientID)")
            }
            return try ModuleChoiceQueries.choice(patientID: try LinkQueries.person(of: patientID, in: db).head, in: db)
        }
    }

    /// Sets (or, with nil, forgets) the person's choice of modules.
    public func setModuleChoice(patientID: String, modules: [String]?, now: Int64) async throws(StoreError) {
        try await write { db in
            guard try db.scalar("SELECT 1 FROM patients WHERE id = ?", [patientID], as: Int64.self) != nil else {
                throw StoreError.notFound("patient \(patientID)")
            }
            let head = try LinkQueries.person(of: patientID, in: db).head
            if let modules {
                try db.execute("INSERT OR REPLACE INTO patient_modules (patient_id, modules, updated_at) VALUES (?, ?, ?)",
                               [head, StringListJSON.encode(modules), now])
            } else {
                try db.execute("DELETE FROM patient_modules WHERE patient_id = ?", [head])
            }
        }
    }
}

/// A list of plain ids as a JSON array; ids are checked by the caller (letters, digits, `-`), so no escaping
/// is ever needed, and anything else reads as no list.
enum StringListJSON {
    static func encode(_ list: [String]) -> String {
        var json = JSONWriter(capacity: 16 * list.count + 2)
        json.beginArray()
        for item in list { json.string(item) }
        json.endArray()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    static func decode(_ json: String) -> [String]? {
        guard json.first == "[", json.last == "]" else { return nil }
        let inner = json.dropFirst().dropLast()
        if inner.isEmpty { return [] }
        var out: [String] = []
        for part in inner.split(separator: ",") {
            guard part.count >= 2, part.first == "\"", part.last == "\"" else { return nil }
            out.append(String(part.dropFirst().dropLast()))
        }
        return out
    }
}
