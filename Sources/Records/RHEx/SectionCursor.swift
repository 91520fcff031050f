import HealthRecord

/// The entries of one type, read an entry at a time from where its section's arrays lie (a record read in
/// passes: `StreamedRecordFile`, whose first pass found them). A type a record names twice has two arrays,
/// read one after the other: its entries come in document order, so an `_id` given twice is numbered as it
/// is for the record read whole (`EntryIdentity` numbers repeats in the order it sees them, and repeats are
/// of one type).
struct SectionCursor {
    let type: EntryType
    /// The entry the cursor is at; nil when the type's entries are all read.
    private(set) var entry: Entry?
    private var arrays: ArraySlice<Range<Int>>
    /// Where the array being read must end.
    private var arrayEnd = 0
    private var scanner: JSONScanner
    private var isFirst = true
    private var isDone: Bool
    private var released: Int
    private let release: (_ from: Int, _ before: Int) -> Int

    /// Gives back the pages this cursor has read at least this much at a time: a record has a cursor a
    /// type, each reading its own part of the file.
    static let releaseStepBytes = 1 << 20

    /// The arrays are not where they were found: the file changed since.
    struct Moved: Error {}

    /// A cursor over the arrays at `arrays` (their bytes, `[` to `]`), at the type's first entry.
    /// `release(from, before)` gives back the pages between two offsets and says where the next release
    /// starts.
    init(type: EntryType, arrays: [Range<Int>], bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, identity: inout EntryIdentity,
         release: @escaping (_ from: Int, _ before: Int) -> Int) throws {
        self.type = type
        self.release = release
        self.arrays = arrays[...]
        let first = self.arrays.popFirst()
        isDone = first == nil
        scanner = JSONScanner(bytes: bytes, maxDepth: maxDepth, offset: first?.lowerBound ?? 0)
        released = first?.lowerBound ?? 0
        arrayEnd = first?.upperBound ?? 0
        if !isDone { try scanner.beginArray() }
        try advance(identity: &identity)
    }

    /// Reads the next entry of the type into `entry` (nil after the last).
    mutating func advance(identity: inout EntryIdentity) throws {
        while true {
            guard !isDone else { entry = nil; return }
            if try scanner.nextElement(isFirst: &isFirst) {
                entry = try RecordReader.readEntry(type, from: &scanner, identity: &identity)
                if scanner.offset - released >= Self.releaseStepBytes { released = release(released, scanner.offset) }
                return
            }
            // This array is read: on to the type's next one, if any.
            guard scanner.offset == arrayEnd else { throw Moved() }
            released = release(released, scanner.offset)
            guard let next = arrays.popFirst() else {
                isDone = true
                entry = nil
                return
            }
            scanner = JSONScanner(bytes: scanner.bytes, maxDepth: scanner.maxDepth, offset: next.lowerBound)
            released = next.lowerBound
            arrayEnd = next.upperBound
            isFirst = true
            try scanner.beginArray()
        }
    }
}
