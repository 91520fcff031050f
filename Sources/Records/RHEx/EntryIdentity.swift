import HealthRecord

/// Stable entry ids for one patient record.
///
/// An entry with an `_id` is identified by its section and that `_id`; one without by a hash of what
/// makes it that entry (section, codes, times, description). Neither depends on where the entry sits
/// in its section, so re-imports of a record whose entries were reordered keep every id.
///
/// Sources repeat `_id`s: hreader_hs_henry_smith.json has the procedure `4f4e9fcbb615219f0a000010`
/// twice, byte for byte, and five vital-sign `_id`s twice with different readings. Every occurrence is
/// an entry, so the second, third… occurrence of the same identity gets `#2`, `#3`… appended; only
/// this numbering depends on order, and only among the duplicates.
struct EntryIdentity {
    /// The ids given so far, by their 80 bits rather than as strings: a 1,000,000-entry record's ids then
    /// take about 32 MB, not 100.
    private var given: Set<StableID.Digest> = []
    /// How many times each id given more than once was given.
    private var repeats: [StableID.Digest: Int] = [:]

    /// Bytes of record JSON an entry is taken to need when sets are sized from a file's size: compact
    /// entries are 100–300 bytes, pretty-printed ones more. An estimate on the high side costs a rehash or
    /// two; a file of tiny entries (`{},{},…`) never makes a table sized by its count alone.
    static let typicalEntryBytes = 160

    /// The entries a document of `bytes` bytes is taken to hold, at most (`typicalEntryBytes` each).
    static func expectedEntries(inBytes bytes: Int, counted: Int = .max) -> Int {
        min(counted, bytes / typicalEntryBytes)
    }

    /// `expectedEntries` sizes the table up front: growing it step by step through a 100,000-entry
    /// record rehashes every id several times over.
    init(expectedEntries: Int = 0) {
        given.reserveCapacity(expectedEntries)
    }

    mutating func id(
        section: String, sourceID: String?, codes: [String: [String]],
        time: Int64?, startTime: Int64?, endTime: Int64?, description: String?
    ) -> String {
        var parts: [String]
        if let sourceID {
            parts = [section, sourceID]
        } else {
            // "h" keeps a hashed identity apart from an `_id` that happens to equal its parts.
            parts = [
                section, "h", CodeNormalisation.canonical(codes),
                EntryIdentity.text(time), EntryIdentity.text(startTime), EntryIdentity.text(endTime),
                description ?? "",
            ]
        }
        let first = StableID.digest(parts)
        if given.insert(first).inserted { return StableID.id("e", first) }
        let occurrence = repeats[first, default: 1] + 1
        repeats[first] = occurrence
        parts.append("#\(occurrence)")
        return StableID.make("e", parts)
    }

    private static func text(_ seconds: Int64?) -> String {
        seconds.map { String($0) } ?? ""
    }
}
