import HealthRecord
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes one patient's record into the store in one transaction, as a difference against what is
/// there: new entries are added, changed ones updated in place (keeping their ids), missing ones removed.
///
/// In three steps, so that a record too large to hold whole can be written as it is read: `init` (the
/// person, their identifiers and kept resources, what the store has of them), `write` for each batch of
/// entries, `finish` (the search index, removals, documents, the patient's revision). `apply` is the three
/// for a record held whole.
final class RecordImport {
    let db: Database
    let record: PatientRecord
    let patientID: String
    let encoder: any EntryEncoder
    let merging: Bool
    let searchIndex: Bool
    let etag: String?
    let now: Int64
    private(set) var summary: ImportSummary
    /// What the store has of the patient's entries; each entry the record gives is taken, so what is never
    /// taken is what the record no longer has.
    private var existing: StoredEntries
    /// The error of a write that failed: the transaction must not be committed (`finish` throws it).
    private(set) var failure: (any Error)?
    private var entriesGiven = 0
    private let firstNewPK: Int64
    /// New entries from this rowid up are not in the search index yet; the last one added.
    private var unindexedFromPK: Int64
    private var lastNewPK: Int64?

    /// The setting that holds the highest revision a removed patient had: a new patient's revisions start
    /// above it (see `PeopleQueries.remove`).
    static let revisionFloorKey = "revision_floor"
    /// That revision as an SQL expression: 0 when no patient was ever removed.
    static let revisionFloorSQL = "coalesce((SELECT CAST(value AS INTEGER) FROM settings WHERE key = '\(revisionFloorKey)'), 0)"

    /// New entries go into the search index this many at a time, while their pages are still in the cache;
    /// indexed all at the end, they are read back from disk. A 100,000-entry import's index work: +26% of the
    /// import all at the end, +19–24% (runs differ) 8,192 at a time, more again 4,096 or 32,768 at a time.
    static let searchIndexStep = 8_192
    private let insert, update, restate: Statement?
    /// The search index's upkeep for an entry the import updates: its text as indexed copied, its row queued.
    private let searchCapture, searchQueue: Statement?
    /// The patient's number in the index's filter rows (`search_people`), once the first new entry is indexed.
    private var searchPerson: Int64?

    static func apply(_ record: PatientRecord, sourceName: String, etag: String?, now: Int64, encoder: (any EntryEncoder)?,
                      options: ImportOptions = .replace, searchIndex: Bool = true, in db: Database) throws -> ImportSummary {
        let writing = try RecordImport(record, sourceName: sourceName, etag: etag, now: now, encoder: encoder, options: options,
                                       searchIndex: searchIndex, in: db)
        guard !writing.summary.skippedAsRemoved else { return writing.summary }
        let entries = record.asOf == nil || writing.existing.isEmpty ? record.entries
            : try sameFactsAgain(record.entries, existing: writing.existing.untakenIDs ?? [], patientID: writing.patientID, in: db)
        // In date order: each type's range of the timeline's index (the widest, it holds each entry's timeline
        // JSON; by type, then date) then grows at its end instead of splitting pages all over, and a new
        // patient's rows lie in date order too. Measured on a 100,000-entry record: about 10% faster, within
        // this machine's run-to-run noise.
        // The order as positions, not a sorted copy of the entries: a copy of a 1,000,000-entry record's
        // entries is about 250 MB more at the import's peak.
        let byDate = entries.indices.sorted { Self.writtenBefore(entries[$0], entries[$1]) }
        // The timeline JSON only for what is added or changed: a re-import of an unchanged record encodes nothing.
        try writing.write(byDate.lazy.map { PreparedEntry(entries[$0], encoder: nil) })
        return try writing.finish()
    }

    /// The order a record held whole is written in: by date (undated last), then id.
    static func writtenBefore(_ a: Entry, _ b: Entry) -> Bool {
        switch (a.date, b.date) {
        case let (x?, y?): return x != y ? x < y : a.id < b.id
        case (nil, _?): return false
        case (_?, nil): return true
        case (nil, nil): return a.id < b.id
        }
    }

    /// The first step: the person (added, found again or updated), their identifiers and kept resources,
    /// and what the store has of their entries. `record.entries` is not read: they come to `write`.
    /// `streamed`: the entries will come a batch at a time, not from `record` (see `StoredEntries`).
    init(_ record: PatientRecord, sourceName: String, etag: String?, now: Int64, encoder: (any EntryEncoder)?,
         options: ImportOptions, searchIndex: Bool, streamed: Bool = false, in db: Database) throws {
        guard let encoder else { throw StoreError.noEntryEncoder }
        guard let (sourceID, sourceKind) = try db.row("SELECT id, kind FROM sources WHERE name = ?", [sourceName], { row in
            (row.int64("id"), row.string("kind"))
        }) else {
            throw StoreError.notFound("source \(sourceName)")
        }
        self.db = db
        self.record = record
        self.encoder = encoder
        self.etag = etag
        self.now = now
        self.searchIndex = searchIndex
        let patientID = try Self.patientID(for: record, sourceName: sourceName, options: options, in: db)
        self.patientID = patientID
        summary = ImportSummary(patientID: patientID, patient: .unchanged)
        let merging = options.mode == .merge
        self.merging = merging
        if options.patientID == nil, try PeopleQueries.isRemoved(sourceID: sourceID, recordID: record.recordID, in: db) {
            // A person removed this record: a sync does not bring it back. A file the person imports
            // again is their say: the record comes back.
            guard sourceKind == Source.Kind.file.rawValue else {
                summary.skippedAsRemoved = true
                (firstNewPK, unindexedFromPK, insert, update, restate, searchCapture, searchQueue) = (0, 0, nil, nil, nil, nil, nil)
                existing = try StoredEntries(patientID: patientID, streamed: true, in: db)
                return
            }
            try db.execute("DELETE FROM removed_records WHERE source_id = ? AND record_id = ?", [sourceID, record.recordID])
        }

        struct Demographics: Equatable {
            var mrn, name, first, last, gender: String?
            var birthdate: Int64?
            var other: String?
            var deceased = false
            var deceasedAt: Int64?
        }
        var incoming = Demographics(mrn: record.medicalRecordNumber, name: record.name, first: record.firstName,
                                    last: record.lastName, gender: record.gender, birthdate: record.birthdate,
                                    other: record.otherFieldsJSON, deceased: record.deceased ?? false, deceasedAt: record.deceasedDate)
        var storedAsOf: Int64?
        let stored = try db.row(
            "SELECT mrn, name, first_name, last_name, gender, birthdate, other_fields, as_of, deceased, deceased_at FROM patients WHERE id = ?", [patientID]
        ) { row in
            storedAsOf = row.int64OrNil("as_of")
            return Demographics(mrn: row.stringOrNil("mrn"), name: row.stringOrNil("name"), first: row.stringOrNil("first_name"),
                                last: row.stringOrNil("last_name"), gender: row.stringOrNil("gender"),
                                birthdate: row.int64OrNil("birthdate"), other: row.stringOrNil("other_fields"),
                                deceased: row.int64("deceased") != 0, deceasedAt: row.int64OrNil("deceased_at"))
        }
        if merging, let stored, record.otherFieldsJSON == "{}" || Self.olderThanStored(storedAsOf, record: record, merging: merging) {
            // A record without its demographic document (FHIR resources without their Patient, known by a
            // reference and perhaps its display name) adds entries and changes nothing of the person.
            incoming = stored
        } else if merging, let stored {
            // A partial record (a file without the Patient resource) does not blank what is known.
            func keep<T>(_ new: T?, _ old: T?) -> T? { new ?? old }
            incoming.mrn = keep(incoming.mrn, stored.mrn)
            incoming.name = incoming.name?.isEmpty ?? true ? stored.name : incoming.name
            incoming.first = keep(incoming.first, stored.first)
            incoming.last = keep(incoming.last, stored.last)
            incoming.gender = keep(incoming.gender, stored.gender)
            incoming.birthdate = keep(incoming.birthdate, stored.birthdate)
            if incoming.other == "{}" { incoming.other = stored.other }
            // A record that does not say the person died does not bring them back.
            if record.deceased == nil { (incoming.deceased, incoming.deceasedAt) = (stored.deceased, stored.deceasedAt) }
            incoming.deceasedAt = keep(incoming.deceasedAt, incoming.deceased ? stored.deceasedAt : nil)
        }
        if let stored {
            if stored != incoming {
                try db.execute("""
                    UPDATE patients SET mrn = ?, name = ?, first_name = ?, last_name = ?, gender = ?, birthdate = ?,
                        other_fields = ?, deceased = ?, deceased_at = ? WHERE id = ?
                    """, [incoming.mrn, incoming.name, incoming.first, incoming.last, incoming.gender,
                          incoming.birthdate, incoming.other, incoming.deceased ? 1 : 0, incoming.deceasedAt, patientID])
                summary.patient = .updated
            }
        } else {
            try db.execute("""
                INSERT INTO patients (id, source_id, record_id, mrn, name, first_name, last_name, gender, birthdate,
                    other_fields, etag, imported_at, updated_at, deceased, deceased_at, revision)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                        \(Self.revisionFloorSQL) + 1)
                """, [patientID, sourceID, record.recordID, record.medicalRecordNumber,
                      record.name.isEmpty ? "Unnamed (\(record.recordID))" : record.name, record.firstName,
                      record.lastName, record.gender, record.birthdate, record.otherFieldsJSON, etag, now, now,
                      incoming.deceased ? 1 : 0, incoming.deceasedAt])
            summary.patient = .added
        }
        if let asOf = record.asOf, storedAsOf.map({ $0 < asOf }) ?? true {
            try db.execute("UPDATE patients SET as_of = ? WHERE id = ?", [asOf, patientID])
        }
        if !record.identifiers.isEmpty {
            let add = try db.statement("INSERT OR IGNORE INTO patient_identifiers (patient_id, system, value) VALUES (?, ?, ?)")
            for identifier in record.identifiers { try add.execute([patientID, identifier.system, identifier.value]) }
        }
        let keptChanged = try KeptResources.apply(record.keptResources, patientID: patientID, replacing: !merging, in: db)
        if keptChanged, summary.patient == .unchanged { summary.patient = .updated }

        existing = try StoredEntries(patientID: patientID, streamed: streamed, in: db)
        // Entries inserted and updated go to the search index's queue from here (see SearchIndexSchema).
        searchCapture = searchIndex ? try db.statement(SearchIndexSchema.captureEntry) : nil
        searchQueue = searchIndex ? try db.statement("INSERT OR IGNORE INTO search_queue (docid) VALUES (?)") : nil
        // New entries get rowids above every one there is: they go into the index by rowid, a step at a time.
        firstNewPK = (try db.scalar("SELECT max(pk) FROM entries", as: Int64.self) ?? 0) + 1
        unindexedFromPK = firstNewPK

        insert = try db.statement("""
            INSERT INTO entries (id, patient_id, type, description, date, time, start_time, end_time, status, value,
                text_value, units, codes, source_entry_id, raw, content_hash, ongoing_end, timeline_json, as_of,
                ref_low, ref_low_unit, ref_high, ref_high_unit, ref_text, interpretation, source_note)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        update = try db.statement("""
            UPDATE entries SET type = ?, description = ?, date = ?, time = ?, start_time = ?, end_time = ?, status = ?,
                value = ?, text_value = ?, units = ?, codes = ?, source_entry_id = ?, raw = ?, content_hash = ?,
                ongoing_end = ?, timeline_json = ?, as_of = ?, ref_low = ?, ref_low_unit = ?, ref_high = ?, ref_high_unit = ?,
                ref_text = ?, interpretation = ?, source_note = ?
            WHERE patient_id = ? AND id = ?
            """)
        // The same fact said again by a newer document: it is now said as of that document.
        restate = try db.statement("UPDATE entries SET as_of = ? WHERE patient_id = ? AND id = ?")
    }

    /// A merge of a record older than what the store has from a newer one (documents) adds what is new and
    /// changes nothing the newer one said.
    private static func olderThanStored(_ said: Int64?, record: PatientRecord, merging: Bool) -> Bool {
        guard merging, let asOf = record.asOf, let said else { return false }
        return said > asOf
    }

    /// An entry with what the store writes beside it, worked out before the write: the part of an import
    /// that needs no database, so that a reader on another thread can do it while the writer writes.
    struct PreparedEntry: Sendable {
        let entry: Entry
        let codes: String
        let hash: [UInt8]
        /// The entry's timeline JSON when it was encoded ahead (`encoder` given): `.some(nil)` for a vital sign.
        let encodedTimelineJSON: String??

        init(_ entry: Entry, encoder: (any EntryEncoder)?) {
            let codes = JSONWriter.codes(entry.codes)
            self.entry = entry
            self.codes = codes
            hash = RecordImport.contentHash(entry, codes: codes)
            encodedTimelineJSON = encoder.map { RecordImport.timelineJSON(entry, codes: codes, encoder: $0) }
        }

        /// The timeline JSON, encoded ahead or now.
        func timelineJSON(encoder: any EntryEncoder) -> String? {
            encodedTimelineJSON ?? RecordImport.timelineJSON(entry, codes: codes, encoder: encoder)
        }
    }

    /// Writes entries of the record: added, updated, or left as they are. An id given twice in the record
    /// is an error (the second time it is found neither among the stored entries nor new).
    func write<Entries: Sequence<PreparedEntry>>(_ entries: Entries) throws {
        guard !summary.skippedAsRemoved, let insert, let update, let restate else { return }
        guard failure == nil else { throw StoreError.invalidInput("an import is written on after one of its writes failed") }
        do { try write(entries, insert: insert, update: update, restate: restate) } catch {
            failure = error
            throw error
        }
    }

    private func write<Entries: Sequence<PreparedEntry>>(_ entries: Entries, insert: Statement, update: Statement,
                                                         restate: Statement) throws {
        for prepared in entries {
            let (entry, codes, hash) = (prepared.entry, prepared.codes, prepared.hash)
            entriesGiven += 1
            if let old = try existing.take(entry.id) {
                let restated = old.hash != hash && Self.onlyRestated(entry, codes: codes, as: old)
                if old.hash == hash || restated || Self.olderThanStored(old.asOf, record: record, merging: merging) {
                    if old.hash != hash && !restated { summary.entriesKeptNewer += 1 }
                    if let asOf = record.asOf, old.asOf.map({ $0 < asOf }) ?? true {
                        try restate.execute([asOf, patientID, entry.id])
                    }
                    summary.entriesUnchanged += 1
                    summary.byType[entry.type.ordinal].unchanged += 1
                } else {
                    let timelineJSON = prepared.timelineJSON(encoder: encoder)
                    // Before the update: the index removes the entry's words by reading its text as indexed.
                    try searchCapture?.execute([old.pk])
                    try update.execute { (b: inout Bindings) throws(DatabaseError) in
                        try b.bind(entry.type.rawValue); try b.bind(entry.description); try b.bind(entry.date); try b.bind(entry.time)
                        try b.bind(entry.startTime); try b.bind(entry.endTime); try b.bind(entry.status); try b.bind(entry.value)
                        try b.bind(entry.textValue); try b.bind(entry.units); try b.bind(codes); try b.bind(entry.sourceID)
                        try b.bind(entry.rawJSON); try b.bind(hash); try b.bind(entry.ongoingEnd); try b.bind(timelineJSON)
                        try b.bind(record.asOf); try Self.bindDetail(entry, to: &b); try b.bind(patientID); try b.bind(entry.id)
                    }
                    try searchQueue?.execute([old.pk])
                    summary.entriesUpdated += 1
                    summary.byType[entry.type.ordinal].updated += 1
                }
            } else {
                let timelineJSON = prepared.timelineJSON(encoder: encoder)
                do {
                    // Bound by type, in the insert's order: the statement an import runs for every entry.
                    try insert.execute { (b: inout Bindings) throws(DatabaseError) in
                        try b.bind(entry.id); try b.bind(patientID); try b.bind(entry.type.rawValue); try b.bind(entry.description)
                        try b.bind(entry.date); try b.bind(entry.time); try b.bind(entry.startTime); try b.bind(entry.endTime)
                        try b.bind(entry.status); try b.bind(entry.value); try b.bind(entry.textValue); try b.bind(entry.units)
                        try b.bind(codes); try b.bind(entry.sourceID); try b.bind(entry.rawJSON); try b.bind(hash)
                        try b.bind(entry.ongoingEnd); try b.bind(timelineJSON); try b.bind(record.asOf); try Self.bindDetail(entry, to: &b)
                    }
                } catch {
                    guard error.isUniqueViolation else { throw error }
                    throw StoreError.invalidInput("the record holds two entries with the id \(entry.id)")
                }
                summary.entriesAdded += 1
                summary.byType[entry.type.ordinal].added += 1
                lastNewPK = db.lastInsertRowID
                if let lastNewPK, lastNewPK - unindexedFromPK + 1 >= Self.searchIndexStep { try indexNewEntries() }
            }
        }
    }

    /// The entries added since the last call, into the search index in one statement (FTS4 writes them in bulk).
    private func indexNewEntries() throws {
        guard searchIndex, let lastNewPK, lastNewPK >= unindexedFromPK else { return }
        let person: Int64
        if let searchPerson {
            person = searchPerson
        } else {
            try db.execute("INSERT OR IGNORE INTO search_people (patient_id) VALUES (?)", [patientID])
            person = try db.scalar("SELECT number FROM search_people WHERE patient_id = ?", [patientID], as: Int64.self) ?? 0
            searchPerson = person
        }
        try db.execute(SearchIndexSchema.indexNewEntries, [unindexedFromPK])
        try db.execute(SearchIndexSchema.indexNewEntryRows, [unindexedFromPK, person])
        unindexedFromPK = lastNewPK + 1
    }

    /// The last step: the new entries indexed for search, what the record no longer has removed (unless it
    /// is a merge), its documents kept, the patient's revision and count.
    func finish() throws -> ImportSummary {
        if let failure { throw failure }
        guard !summary.skippedAsRemoved else { return summary }
        if searchIndex, summary.entriesAdded > 0 {
            try indexNewEntries()
            try db.execute(SearchIndexSchema.copyAnnotatedNewEntries, [patientID, firstNewPK])
            try db.execute(SearchIndexSchema.queueAnnotatedNewEntries, [patientID, firstNewPK])
        }
        if !merging {
            let delete = try db.statement("DELETE FROM entries WHERE pk = ?")
            for old in try existing.untaken(in: db) {
                try delete.execute([old.pk])
                summary.entriesRemoved += 1
                if let type = old.type { summary.byType[type.ordinal].removed += 1 }
            }
        }
        for document in record.documents {
            if try DocumentQueries.keep(document, patientID: patientID, now: now, in: db) { summary.documentsAdded += 1 }
        }
        if summary.changedAnything {
            if summary.patient == .unchanged { summary.patient = .updated }
            // A merge adds to what is there: count what is there.
            let count = merging ? try db.scalar("SELECT count(*) FROM entries WHERE patient_id = ?", [patientID], as: Int64.self) ?? 0
                : Int64(entriesGiven)
            try db.execute("UPDATE patients SET revision = revision + 1, entry_count = ?, updated_at = ?, etag = ? WHERE id = ?",
                           [count, now, etag, patientID])
        } else if etag != nil {
            try db.execute("UPDATE patients SET etag = ? WHERE id = ?", [etag, patientID])
        }
        return summary
    }

    /// A newer document often gives the same facts again with new statement ids. An entry whose id the store
    /// does not know but whose fact it does (type, codes, date and description of an entry the record does
    /// not itself give) takes that entry's id: the fact is shown once, and updated when it changed.
    static func sameFactsAgain(_ entries: [Entry], existing: Set<String>, patientID: String, in db: Database) throws -> [Entry] {
        func key(_ type: String, _ codes: String, _ date: Int64?, _ description: String?) -> String {
            [type, codes, date.map(String.init) ?? "", description ?? ""].joined(separator: "\u{1f}")
        }
        let given = Set(entries.map(\.id))
        var known: [String: (id: String, sourceID: String?)] = [:]
        try db.statement("SELECT id, type, codes, date, description, source_entry_id FROM entries WHERE patient_id = ?")
            .forEach([patientID]) { row in
                let id = row.string(0)
                guard !given.contains(id) else { return }
                known[key(row.string(1), row.string(2), row.int64OrNil(3), row.stringOrNil(4))] = (id, row.stringOrNil(5))
            }
        guard !known.isEmpty else { return entries }
        var out = entries
        for index in out.indices where !existing.contains(out[index].id) {
            let entry = out[index]
            if let fact = known.removeValue(forKey: key(entry.type.rawValue, JSONWriter.codes(entry.codes), entry.date, entry.description)) {
                // The fact keeps the id and the statement id it was first given: an unchanged fact is unchanged.
                out[index].id = fact.id
                out[index].sourceID = fact.sourceID
            }
        }
        return out
    }

    /// The patient a record goes to: the one named in the options (which must exist), else one that
    /// shares an identifier with the record, else the record's own identity in its source.
    static func patientID(for record: PatientRecord, sourceName: String, options: ImportOptions, in db: Database) throws -> String {
        if let chosen = options.patientID {
            guard try db.scalar("SELECT 1 FROM patients WHERE id = ?", [chosen], as: Int64.self) != nil else {
                throw StoreError.notFound("patient \(chosen)")
            }
            return chosen
        }
        if !record.identifiers.isEmpty {
            let find = try db.statement("SELECT patient_id FROM patient_identifiers WHERE system = ? AND value = ? ORDER BY patient_id LIMIT 1")
            for identifier in record.identifiers {
                var found: String?
                try find.forEach([identifier.system, identifier.value]) { row in found = row.string(0) }
                if let found { return found }
            }
        }
        return Patient.id(sourceName: sourceName, recordID: record.recordID)
    }

    /// The entry's object in the timeline's arrays, stored beside it (see `EntryEncoder`). None for a
    /// vital sign: the timeline groups vital signs from their columns and never shows one as an object.
    static func timelineJSON(_ entry: Entry, codes: String, encoder: any EntryEncoder) -> String? {
        guard entry.type != .vitalSign else { return nil }
        return String(decoding: encoder.encode(StoredEntry(entry, codesJSON: codes)), as: UTF8.self)
    }

    /// What the source said about a result, in the statements' column order (ref_low … source_note).
    static func bindDetail(_ entry: Entry, to b: inout Bindings) throws(DatabaseError) {
        let range = entry.referenceRange
        try b.bind(range?.low?.value); try b.bind(range?.low?.unit); try b.bind(range?.high?.value); try b.bind(range?.high?.unit)
        try b.bind(range?.text); try b.bind(entry.interpretation); try b.bind(entry.sourceNote)
    }

    /// A digest of everything stored for an entry: equal digests mean a re-import changes nothing.
    /// The same fact said again under a new statement id (a C-CDA document's fact known by its content, its
    /// id shared by other facts), and nothing else changed: unchanged, and it keeps the statement id it was
    /// first given, as a fact matched by `sameFactsAgain` does.
    static func onlyRestated(_ entry: Entry, codes: String, as old: StoredEntries.Stored) -> Bool {
        guard entry.sourceID != old.sourceID else { return false }
        var first = entry
        first.sourceID = old.sourceID
        return contentHash(first, codes: codes) == old.hash
    }

    static func contentHash(_ entry: Entry, codes: String) -> [UInt8] {
        var parts: [UInt8] = []
        parts.reserveCapacity(entry.rawJSON.utf8.count + 128)
        func add(_ text: String?) {
            if let text { parts.append(contentsOf: text.utf8) } else { parts.append(0xff) }
            parts.append(0x1f)
        }
        func add(_ number: Int64?) { add(number.map { String($0) }) }
        add(entry.type.rawValue); add(entry.description); add(entry.time); add(entry.startTime); add(entry.endTime)
        add(entry.status); add(entry.value.map { "\($0)" }); add(entry.textValue); add(entry.units); add(codes)
        add(entry.sourceID); add(entry.rawJSON)
        // Only when there is any: an entry without them keeps the digest it had before they were read.
        if entry.referenceRange != nil || entry.interpretation != nil || entry.sourceNote != nil {
            let range = entry.referenceRange
            add(range?.low.map { "\($0.value)" }); add(range?.low?.unit); add(range?.high.map { "\($0.value)" }); add(range?.high?.unit)
            add(range?.text); add(entry.interpretation); add(entry.sourceNote)
        }
        return Array(Digests.sha256(parts).prefix(16))
    }
}

extension Store {
    /// A record imported as a stream (a record too large to hold whole) is written with the writer's page
    /// cache raised to this, and lowered again after: its indexes' pages are then written out once, not again
    /// and again as the cache fills (a 1,000,000-entry import: 33 s of writing with the usual 16 MiB, 23 s
    /// with 64 MiB; written in date order and in place, 20.5 s with 64 MiB and 19.8 s with 128 MiB, which the
    /// random order of the id index's inserts still reads back from disk; peak memory 146 and 217 MB, under
    /// the 256 MiB this import must stay within). Records held whole keep the usual cache: at 100,000 entries
    /// a larger one gained nothing measurable, and the daemon's memory would keep what an import's cache took.
    public static let bulkImportCacheKiB = 128 * 1024

    /// Imports one patient record (one transaction): a failure changes nothing. A record of
    /// `largeImportEntries` entries or more is a large import (`Options.largeImportsInPlace`).
    public func importRecord(_ record: PatientRecord, sourceName: String = "files", etag: String? = nil,
                             options: ImportOptions = .replace, now: Int64 = Store.now()) async throws(StoreError) -> ImportSummary {
        let body: @Sendable (Database) throws -> ImportSummary = { [entryEncoder] db in
            try RecordImport.apply(record, sourceName: sourceName, etag: etag, now: now, encoder: entryEncoder, options: options, in: db)
        }
        return try await write(largeImport: record.entries.count >= Self.largeImportEntries, body)
    }

    package func importRecordSync(_ record: PatientRecord, sourceName: String = "files", etag: String? = nil,
                                 options: ImportOptions = .replace, now: Int64 = Store.now()) throws(StoreError) -> ImportSummary {
        let body = { [entryEncoder] (db: Database) throws -> ImportSummary in
            try RecordImport.apply(record, sourceName: sourceName, etag: etag, now: now, encoder: entryEncoder, options: options, in: db)
        }
        return try writeSync(largeImport: record.entries.count >= Self.largeImportEntries, body)
    }

    /// Entries made ready to write (`importRecordSync(_:entries:)`): the work of an import that needs no
    /// database, done on the caller's thread.
    public struct PreparedEntries: Sendable {
        let entries: [RecordImport.PreparedEntry]
        public var count: Int { entries.count }
    }

    /// What a streamed import's `entries` is given (`importRecordSync(_:entries:)`): it writes a batch
    /// (`write(batch)`), and writes out the pages changed so far (`writeOutChangedPages`) for a moment it
    /// would otherwise wait for the next batch.
    public struct StreamedWriter {
        fileprivate let writing: RecordImport
        fileprivate let db: Database

        /// Writes `batch` in the import's transaction.
        public func callAsFunction(_ batch: PreparedEntries) throws {
            try writing.write(batch.entries)
        }

        /// The pages the import has changed so far, written out of the page cache (`Database.writeOutChangedPages`)
        /// while the caller waits for its next batch: the commit, which nothing overlaps, then has fewer to write.
        /// A 100,000-resource FHIR upload wrote about 0.7 s of pages at its commit, after its mapping had ended.
        public func writeOutChangedPages() throws(StoreError) {
            do { try db.writeOutChangedPages() } catch { throw .database(error) }
        }
    }

    public func prepare(_ entries: [Entry]) throws(StoreError) -> PreparedEntries {
        guard let entryEncoder else { throw StoreError.noEntryEncoder }
        return PreparedEntries(entries: entries.map { RecordImport.PreparedEntry($0, encoder: entryEncoder) })
    }

    /// Imports one patient record whose entries come a batch at a time: a record too large to hold whole
    /// (`StreamedRecordFile`). `record` is the record without its entries; `entries` is given the function
    /// that writes a batch (made ready by `prepare`), and calls it for each batch in turn. One transaction:
    /// an error of the store, or one `entries` throws (thrown as it is), changes nothing. For a record
    /// without `asOf`: a document's facts said again under new ids are matched over the whole record
    /// (`sameFactsAgain`), which needs it held whole. A large import (`Options.largeImportsInPlace`).
    package func importRecordSync(_ record: PatientRecord, entries: (_ write: StreamedWriter) throws -> Void,
                                 sourceName: String = "files", options: ImportOptions = .replace,
                                 now: Int64 = Store.now()) throws -> ImportSummary {
        guard record.asOf == nil else { throw StoreError.invalidInput("a document (a record with asOf) is imported whole") }
        let given = GivenError()
        do {
            // Written in place when the store was opened for it and is this writer's alone (`import-file` with
            // no daemon serving): each page once, not logged and then copied by the checkpoint.
            return try writeSync(largeImport: true) { [entryEncoder] db in
                try Self.importStreamed(record, entries: entries, sourceName: sourceName, options: options, now: now,
                                        encoder: entryEncoder, given: given, in: db)
            }
        } catch {
            throw given.error ?? error
        }
    }

    /// `importRecordSync(_:entries:…)` from async code: the write runs on the store's writer, which calls
    /// `entries` there (it may wait there for batches that another thread makes ready).
    public func importRecord(_ record: PatientRecord, entries: @escaping @Sendable (_ write: StreamedWriter) throws -> Void,
                             sourceName: String = "files", options: ImportOptions = .merge,
                             now: Int64 = Store.now()) async throws -> ImportSummary {
        guard record.asOf == nil else { throw StoreError.invalidInput("a document (a record with asOf) is imported whole") }
        let given = GivenError()
        do {
            return try await write(largeImport: true) { [entryEncoder] db in
                try Self.importStreamed(record, entries: entries, sourceName: sourceName, options: options, now: now,
                                        encoder: entryEncoder, given: given, in: db)
            }
        } catch {
            throw given.error ?? error
        }
    }

    /// The error `entries` threw, kept to be thrown as it is once the transaction has rolled back.
    private final class GivenError: @unchecked Sendable {
        // Set on the writer inside the transaction and read by the caller after it: one thread at a time.
        var error: (any Error)?
    }

    private struct Abandoned: Error {}

    private static func importStreamed(_ record: PatientRecord, entries: (_ write: StreamedWriter) throws -> Void,
                                       sourceName: String, options: ImportOptions, now: Int64, encoder: (any EntryEncoder)?,
                                       given: GivenError, in db: Database) throws -> ImportSummary {
        try db.withCacheSize(kib: Self.bulkImportCacheKiB) {
            let writing = try RecordImport(record, sourceName: sourceName, etag: nil, now: now, encoder: encoder,
                                           options: options, searchIndex: true, streamed: true, in: db)
            do {
                try entries(StreamedWriter(writing: writing, db: db))
            } catch {
                if let failure = writing.failure { throw failure }
                given.error = error
                throw Abandoned()
            }
            // A write error the caller caught and went on past still fails the import (`finish` throws it).
            return try writing.finish()
        }
    }

    /// Seconds since the epoch, the store's clock.
    public static func now() -> Int64 { Int64(time(nil)) }
}

extension Store {
    /// The order in which an import writes a record held whole (`RecordImport.apply`), for a benchmark that hands
    /// the writer entries in that order (`Tools/hreaderd-bench`).
    package static func inWriteOrder(_ entries: [Entry]) -> [Entry] {
        entries.sorted(by: RecordImport.writtenBefore)
    }
}

/// For the benchmarks (`Tools/hreaderd-bench`) alone, so `package`: the product goes through `Store`.
extension Database {
    /// Imports a record on this connection, inside the caller's transaction. For benchmarks that compare
    /// the encrypted store with a plain database of the same schema, and the import with and without the
    /// search index kept (`searchIndex`); the product goes through `Store`, which always keeps it.
    package func importRecord(_ record: PatientRecord, sourceName: String = "files", now: Int64,
                             encoder: any EntryEncoder, searchIndex: Bool = true) throws -> ImportSummary {
        let summary = try RecordImport.apply(record, sourceName: sourceName, etag: nil, now: now, encoder: encoder,
                                             searchIndex: searchIndex, in: self)
        if searchIndex { try SearchIndex.apply(in: self) }
        return summary
    }

    /// Creates or upgrades the schema on this connection (benchmarks' own databases). It goes on past a
    /// migration that rewrote the schema's text: nothing after it changes that table on this connection.
    package func migrateToCurrentSchema() throws {
        while try Migrator.migrate(self).mustReopen {}
    }

    /// The timeline's read of a window on this connection: the number of entries it found.
    package func timelineEntryCount(patientID: String, from start: Int64, to end: Int64) throws -> Int {
        let window = try TimelineWindowQuery.timeline(patientID: patientID, from: start, to: end, in: self)
        return window.sections.values.reduce(window.vitalSigns.count) { $0 + $1.count }
    }
}
