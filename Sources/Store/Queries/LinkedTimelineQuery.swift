import HealthRecord

/// The timeline of a person made of several linked patients: the union of their windows, in (date, id)
/// order, with a fact that two sources both hold (same type, same codes, same date) shown once and both
/// sources named. Rarer than a person of one, so it reads plainly, entry by entry, instead of from the
/// covering indexes alone: it needs each entry's codes.
enum LinkedTimelineQuery {
    private struct Item {
        var type: EntryType
        var date: Int64?
        var id: String
        var json: [UInt8]
        var description: String?
        var value: Double?
        var units: String?
        var codes: String
        var source: String

        var factKey: String? { LinkedTimelineQuery.factKey(type: type, codes: codes, date: date, description: description, value: value) }
    }

    /// What makes two entries one fact (the timeline's rule, the shared documents' too): the same type, codes
    /// and date; for a vital sign the same description, date and value. Nil when an entry has no codes to tell it by.
    static func factKey(type: EntryType, codes: String, date: Int64?, description: String?, value: Double?) -> String? {
        if type == .vitalSign { return "\(type.rawValue)|\(description ?? "")|\(date.map(String.init) ?? "")|\(value.map { "\($0)" } ?? "")" }
        guard codes != "{}" else { return nil }
        return "\(type.rawValue)|\(codes)|\(date.map(String.init) ?? "")"
    }

    static let columns = "type, timeline_json, id, date, description, value, units, codes"
    static let windowSQL = "SELECT \(columns) FROM entries WHERE \(TimelineWindowQuery.inWindowCondition)"
    static let ongoingSQL = "SELECT \(columns) FROM entries WHERE \(OngoingQuery.condition)"

    static func read(head: String, members: [String], from start: Int64, to end: Int64, in db: Database) throws -> TimelineSnapshot? {
        guard var patient = try db.row("SELECT \(Store.patientColumns) WHERE p.id = ?", [head], Store.patient) else { return nil }
        var window: [Item] = []
        var ongoing: [Item] = []
        var posts: [TimelinePost] = []
        var readings: [Reading] = []
        var annotations: [String: Annotation] = [:]
        var revision: Int64 = 0
        for member in members {
            guard let (source, memberRevision) = try db.row("""
                SELECT s.name AS source, p.revision FROM patients p JOIN sources s ON s.id = p.source_id WHERE p.id = ?
                """, [member], { row in (row.string("source"), row.int64("revision")) }) else { continue }
            revision += memberRevision
            try db.statement(windowSQL).forEach([member, start, end]) { row in window.append(try item(row, source: source)) }
            try db.statement(ongoingSQL).forEach([member, start, end]) { row in ongoing.append(try item(row, source: source)) }
            posts += try TimelinePostQueries.posts(patientID: member, from: start, to: end, in: db)
            readings += try ReadingQueries.readings(patientID: member, from: start, to: end, in: db)
            for (id, annotation) in try AnnotationQueries.byEntry(patientID: member, in: db) where annotations[id] == nil {
                annotations[id] = annotation
            }
        }
        patient.revision = revision
        var alsoFrom: [String: [String]] = [:]
        let annotated = Set(annotations.keys)
        let shownWindow = unique(window, annotated: annotated, alsoFrom: &alsoFrom)
        let shownOngoing = unique(ongoing, annotated: annotated, alsoFrom: &alsoFrom)
        var sections: [EntryType: EntryList] = [:]
        var vitalSigns: [StoredEntry] = []
        for item in shownWindow {
            if item.type == .vitalSign {
                vitalSigns.append(StoredEntry(id: item.id, type: .vitalSign, description: item.description, date: item.date, time: nil,
                                              startTime: nil, endTime: nil, status: nil, value: item.value, textValue: nil,
                                              units: item.units, codesJSON: "{}"))
            } else {
                sections[item.type, default: EntryList()].append(json: item.json, markedAs: marked(item.id, annotations, alsoFrom))
            }
        }
        var ongoingList = EntryList()
        for item in shownOngoing { ongoingList.append(json: item.json, markedAs: marked(item.id, annotations, alsoFrom)) }
        posts.sort { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        readings.sort { ($0.takenAt, $0.id) < ($1.takenAt, $1.id) }
        return TimelineSnapshot(patient: patient, sections: sections, vitalSigns: TimelineSnapshot.merging(vitalSigns, readings),
                                ongoing: ongoingList, posts: posts, readings: readings, annotations: annotations, alsoFrom: alsoFrom)
    }

    private static func item(_ row: Row, source: String) throws -> Item {
        Item(type: try TimelineWindowQuery.entryType(row.string(0)), date: row.int64OrNil(3), id: row.string(2),
             json: row.stringOrNil(1).map { Array($0.utf8) } ?? [], description: row.stringOrNil(4), value: row.doubleOrNil(5),
             units: row.stringOrNil(6), codes: row.string(7), source: source)
    }

    /// In (date, id) order, each fact once: the first of its sources shown (or the first the person
    /// annotated, so that their note stays in view), every source named in `alsoFrom`.
    private static func unique(_ items: [Item], annotated: Set<String>, alsoFrom: inout [String: [String]]) -> [Item] {
        let sorted = items.sorted { a, b in
            switch (a.date, b.date) {
            case let (x?, y?) where x != y: return x < y
            case (nil, _?): return false
            case (_?, nil): return true
            default: return a.id < b.id
            }
        }
        var shownOfFact: [String: Int] = [:]
        var sourcesOf: [Int: [String]] = [:]
        var shown: [Item] = []
        for item in sorted {
            if let key = item.factKey {
                if let index = shownOfFact[key] {
                    var sources = sourcesOf[index] ?? [shown[index].source]
                    if !sources.contains(item.source) { sources.append(item.source) }
                    sourcesOf[index] = sources
                    if annotated.contains(item.id), !annotated.contains(shown[index].id) {
                        // Same fact, same date: the annotated one takes the place in the order.
                        shown[index] = item
                    }
                    continue
                }
                shownOfFact[key] = shown.count
            }
            shown.append(item)
        }
        for (index, sources) in sourcesOf { alsoFrom[shown[index].id] = sources }
        return shown
    }

    private static func marked(_ id: String, _ annotations: [String: Annotation], _ alsoFrom: [String: [String]]) -> String? {
        annotations[id] != nil || alsoFrom[id] != nil ? id : nil
    }
}
