import HealthRecord

/// A record's entries read a type at a time and handed on by date: of the entries each type's cursor is at,
/// the earliest first (an entry without a date after every dated one). A record's sections each run
/// roughly in date order, so what comes out is close to the record's entries sorted by date, and the store
/// writes them so: its index by date, the widest, then grew near its end rather than being swept once a
/// section, every page read back and written again. Measured with a 1,000,000-entry record, section after
/// section: 1.9 times the database's size written before the commit and 0.9 GB read back; by date: 1.1
/// times and 0.2 GB (`docs/benchmarks.md`). The widest index is by type, then date, since (migration 15):
/// each type's range grows at its end either way, and the table's rows still lie in date order.
///
/// Each type's entries keep their document order, so ids are the ones the record read whole gets.
struct EntriesInDateOrder {
    private var cursors: [SectionCursor]
    private var identity: EntryIdentity
    /// The entries handed on so far.
    private(set) var count = 0

    /// `arrays`: where each section's array lies, in document order.
    init(bytes: UnsafeBufferPointer<UInt8>, arrays: [SectionArray], maxDepth: Int, identity: EntryIdentity,
         release: @escaping (_ from: Int, _ before: Int) -> Int) throws {
        self.identity = identity
        var types: [EntryType] = []
        var offsets: [EntryType: [Range<Int>]] = [:]
        for array in arrays {
            if offsets[array.type] == nil { types.append(array.type) }
            offsets[array.type, default: []].append(array.bytes)
        }
        cursors = []
        for type in types {
            cursors.append(try SectionCursor(type: type, arrays: offsets[type] ?? [], bytes: bytes, maxDepth: maxDepth,
                                             identity: &self.identity, release: release))
        }
    }

    /// The next entry; nil after the last.
    mutating func next() throws -> Entry? {
        // A linear look over the cursors: a record has one a type, a dozen at most.
        var earliest: Int?
        var earliestDate = Int64.max
        for index in cursors.indices {
            guard let entry = cursors[index].entry else { continue }
            let date = entry.date ?? .max
            if earliest == nil || date < earliestDate {
                earliest = index
                earliestDate = date
            }
        }
        guard let earliest, let entry = cursors[earliest].entry else { return nil }
        try cursors[earliest].advance(identity: &identity)
        count += 1
        return entry
    }
}
