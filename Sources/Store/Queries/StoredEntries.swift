import HealthRecord

/// What the store has of a patient's entries, as an import meets the record's: each entry the record
/// gives is taken (found, and marked as met); what is never taken is what the record no longer has.
///
/// A record held whole has its stored entries read into a dictionary (its own entries are in memory
/// anyway, and a lookup is a hash). A record read as a stream has each looked up by the index on
/// (patient, id) instead, and those met marked in a bit set by rowid: for a 1,000,000-entry record the
/// dictionary would be some 200 MB, the bit set (a bit for each rowid from the patient's first entry to
/// their last) 125 KB when no other patient's rows lie between.
struct StoredEntries {
    struct Stored {
        let hash: [UInt8]
        let type: EntryType?
        let asOf: Int64?
        let pk: Int64
        /// The statement id it was first given (`source_entry_id`).
        let sourceID: String?
    }

    /// A record held whole: every stored entry by id, taken out as met.
    private var byID: [String: Stored] = [:]
    /// A record read as a stream: the lookup of one entry, and the rows met.
    private let lookup: Statement?
    private var met: RowSet
    private let patientID: String
    /// Whether the patient has any stored entry at all.
    let isEmpty: Bool

    /// `streamed`: look entries up one by one rather than read them all first.
    init(patientID: String, streamed: Bool, in db: Database) throws {
        self.patientID = patientID
        if streamed {
            let span = try db.row("SELECT min(pk), max(pk) FROM entries WHERE patient_id = ?", [patientID]) { row in
                (row.int64OrNil(0), row.int64OrNil(1))
            }
            let (first, last) = (span?.0 ?? 1, span?.1 ?? 0)
            isEmpty = last < first
            lookup = try db.statement("SELECT content_hash, type, as_of, pk, source_entry_id FROM entries WHERE patient_id = ? AND id = ?")
            met = RowSet(first: first, last: last)
        } else {
            var byID: [String: Stored] = [:]
            try db.statement("SELECT id, content_hash, type, as_of, pk, source_entry_id FROM entries WHERE patient_id = ?").forEach([patientID]) { row in
                byID[row.string(0)] = Stored(hash: row.bytes(1), type: EntryType(rawValue: row.string(2)), asOf: row.int64OrNil(3),
                                             pk: row.int64(4), sourceID: row.stringOrNil(5))
            }
            self.byID = byID
            isEmpty = byID.isEmpty
            lookup = nil
            met = RowSet(first: 1, last: 0)
        }
    }

    /// The ids of the stored entries not taken yet, when they are in memory (a record held whole).
    var untakenIDs: Set<String>? {
        lookup == nil ? Set(byID.keys) : nil
    }

    /// The stored entry with this id, taken; nil when there is none, or it was taken already (the record
    /// gives the id twice: the caller's insert then finds it there).
    mutating func take(_ id: String) throws -> Stored? {
        guard let lookup else { return byID.removeValue(forKey: id) }
        guard !isEmpty else { return nil }
        var found: Stored?
        try lookup.forEach([patientID, id]) { row in
            found = Stored(hash: row.bytes(0), type: EntryType(rawValue: row.string(1)), asOf: row.int64OrNil(2), pk: row.int64(3),
                           sourceID: row.stringOrNil(4))
        }
        guard let found, met.insert(found.pk) else { return nil }
        return found
    }

    /// The stored entries never taken: (rowid, type) of each, for the removal of what the record no longer has.
    func untaken(in db: Database) throws -> [(pk: Int64, type: EntryType?)] {
        guard lookup != nil else { return byID.values.map { ($0.pk, $0.type) } }
        guard !isEmpty else { return [] }
        var out: [(pk: Int64, type: EntryType?)] = []
        try db.statement("SELECT pk, type FROM entries WHERE patient_id = ? AND pk BETWEEN ? AND ?")
            .forEach([patientID, met.first, met.last]) { row in
                if !met.contains(row.int64(0)) { out.append((row.int64(0), EntryType(rawValue: row.string(1)))) }
            }
        return out
    }
}

/// A set of rowids within a known range, one bit each.
struct RowSet {
    let first: Int64
    let last: Int64
    private var words: [UInt64]

    init(first: Int64, last: Int64) {
        self.first = first
        self.last = last
        words = [UInt64](repeating: 0, count: last < first ? 0 : Int((last - first) / 64 + 1))
    }

    func contains(_ row: Int64) -> Bool {
        guard row >= first, row <= last else { return false }
        let offset = Int(row - first)
        return words[offset / 64] & (1 << UInt64(offset % 64)) != 0
    }

    /// Adds a row; false when it was there already (or is out of the range).
    mutating func insert(_ row: Int64) -> Bool {
        guard row >= first, row <= last, !contains(row) else { return false }
        let offset = Int(row - first)
        words[offset / 64] |= 1 << UInt64(offset % 64)
        return true
    }
}
