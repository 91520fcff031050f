import HealthRecord

/// A record file too large to hold in memory whole (a long life's record: 1,000,000 entries are about
/// 210 MB of JSON), read in place in passes over the mapped file, each giving back the pages behind it:
///
/// 1. `readHead()`: the whole file checked (its size, UTF-8, JSON, the record's shape) and the record's
///    own members read, its entries skipped;
/// 2. `readEntries(_:)`: the entries a batch at a time, read a type at a time from where the first pass
///    found its sections, in date order as far as reading each section forward allows: the same entries
///    with the same ids that `RecordParser` gives for the file read whole.
///
/// So an import holds a batch of entries, not the record, and the file costs a few MB of memory, not its
/// size. Only a file of one record is read this way; a file of one record a line is `RecordFileReader`'s.
public final class StreamedRecordFile {
    /// Files from this size up are read in passes (`import-file`); smaller ones are read whole, which is
    /// faster for them and as light.
    public static let minimumBytes = 32 << 20
    /// Entries a batch: large enough that a batch's work dwarfs the handing over, small enough to be a
    /// few hundred KB.
    public static let batchEntries = 2_048
    /// UTF-8 is checked this much at a time, its pages given back after each.
    static let validationChunkBytes = 8 << 20

    public let path: String
    public let parser: RecordParser
    private let file: MappedFile

    /// Maps the file. Reads nothing yet.
    public init(path: String, parser: RecordParser = RecordParser(limits: .files)) throws(RecordFileError) {
        self.path = path
        self.parser = parser
        file = try MappedFile(path: path)
    }

    /// The file's size in bytes.
    public var byteCount: Int { file.bytes.count }

    /// What the first pass finds: the record without its entries, how many entries it holds, and the line
    /// it starts on (for messages).
    public struct Head: Sendable {
        public let record: PatientRecord
        public let entries: Int
        public let line: Int
        /// Where each section's array lies, in document order.
        let sections: [SectionArray]
        /// A digest of the record's own bytes: the document but its sections' arrays.
        let ownBytesDigest: [UInt8]
    }

    /// The record's head; nil when the file holds more than one JSON value (one record a line). Throws what
    /// `RecordParser` would throw for the file read whole.
    public func readHead() throws(RecordParseError) -> Head? {
        let start = try checkedBody()
        var reader = makeReader(start: start, sections: .locate)
        defer { file.releaseAll() }
        do {
            let record = try reader.read(recordID: nil)
            reader.scanner.skipWhitespace()
            guard reader.scanner.isAtEnd else { return nil }
            return Head(record: record, entries: reader.entryCount, line: line(ofFirstValueAfter: start),
                        sections: reader.sectionArrays, ownBytesDigest: ownBytesDigest(from: start, outside: reader.sectionArrays) ?? [])
        } catch {
            throw RecordParseError.from(error)
        }
    }

    /// The record's entries, `batchEntries` at a time, in date order as far as reading each section forward
    /// allows (`EntriesInDateOrder`: each type's entries in document order, the earliest of the types'
    /// next ones first). An error `body` throws ends the reading and is thrown as it is; a document error is
    /// thrown as a `RecordParseError`; a file that no longer holds the record `head` read as a
    /// `RecordFileError`: its own bytes changed (found before any entry is handed on), or its sections
    /// (found as they are read; the caller's transaction is then not committed).
    public func readEntries(of head: Head, _ body: ([Entry]) throws -> Void) throws {
        // Checked again: the scanner relies on valid UTF-8, and the file may have changed since the head.
        let start = try checkedBody()
        defer { file.releaseAll() }
        // The person comes from the first pass and the entries from this one: they must be the same file's.
        // The record's own bytes are compared, not read again (a file rewritten in place with the same
        // length is not always caught by its times); the sections are read where the first pass found them.
        let changed = RecordFileError.readFailed(path: path, reason: "the file changed while it was imported")
        guard file.isUnchanged, ownBytesDigest(from: start, outside: head.sections) == head.ownBytesDigest else { throw changed }

        var entries: EntriesInDateOrder
        var batch: [Entry] = []
        batch.reserveCapacity(Self.batchEntries)
        do {
            entries = try EntriesInDateOrder(
                bytes: file.bytes, arrays: head.sections, maxDepth: parser.limits.maxDepth,
                identity: EntryIdentity(expectedEntries: EntryIdentity.expectedEntries(inBytes: byteCount, counted: head.entries)),
                release: { [file] from, before in file.release(from: from, before: before) })
            while let entry = try entries.next() {
                batch.append(entry)
                if batch.count == Self.batchEntries {
                    do { try body(batch) } catch { throw HandedOn(error: error) }
                    batch.removeAll(keepingCapacity: true)
                }
            }
        } catch let error as HandedOn {
            throw error.error
        } catch is SectionCursor.Moved {
            throw changed
        } catch {
            throw RecordParseError.from(error)
        }
        if !batch.isEmpty { try body(batch) }
        guard entries.count == head.entries, file.isUnchanged else { throw changed }
    }

    /// An error of the caller's `body`, thrown on as it is.
    private struct HandedOn: Error {
        let error: any Error
    }

    /// SHA-256 of the document's bytes from `start` on, but those of `sections` (in document order); nil
    /// when a section is not within the file (another file than the one they were found in).
    private func ownBytesDigest(from start: Int, outside sections: [SectionArray]) -> [UInt8]? {
        let bytes = file.bytes
        var own: [UInt8] = []
        var from = start
        for section in sections {
            guard section.bytes.lowerBound >= from, section.bytes.upperBound <= bytes.count else { return nil }
            own.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from..<section.bytes.lowerBound]))
            from = section.bytes.upperBound
        }
        guard from <= bytes.count else { return nil }
        own.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from...]))
        return SHA256.hash(own)
    }

    /// The 1-based line of the first byte that is not white space from `start` on.
    private func line(ofFirstValueAfter start: Int) -> Int {
        var line = 1
        var index = start
        let bytes = file.bytes
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
            if bytes[index] == 0x0A { line += 1 }
            index += 1
        }
        return line
    }

    private func makeReader(start: Int, sections: RecordReader.SectionReading) -> RecordReader {
        var reader = RecordReader(scanner: JSONScanner(bytes: file.bytes, maxDepth: parser.limits.maxDepth, offset: start),
                                  identity: EntryIdentity())
        reader.sections = sections
        reader.endsTheDocument = false
        reader.readUpTo = { [file] offset in file.release(before: offset) }
        return reader
    }

    /// The size limit, then UTF-8 a chunk at a time; where the document starts (after a byte-order mark).
    private func checkedBody() throws(RecordParseError) -> Int {
        let bytes = file.bytes
        guard bytes.count <= parser.limits.maxDocumentBytes else {
            throw .tooLarge(bytes: bytes.count, maxBytes: parser.limits.maxDocumentBytes)
        }
        let bad = UTF8Validation.firstInvalidOffset(in: bytes, chunkBytes: Self.validationChunkBytes) { file.release(before: $0) }
        file.releaseAll()
        if let bad { throw .invalidUTF8(offset: bad) }
        return JSONDocument.byteOrderMarkLength(bytes)
    }
}
