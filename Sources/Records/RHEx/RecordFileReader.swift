#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HealthRecord

/// Why a record file could not be read at all (as opposed to one bad record in it).
public enum RecordFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case readFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): return "cannot open \(path): \(reason)"
        case let .readFailed(path, reason): return "cannot read \(path): \(reason)"
        }
    }
}

/// Reads the records of an RHEx record file one at a time, for `import-file`.
///
/// A file holds either one record, possibly pretty-printed over many lines (hReader's bundled
/// patients, hds_*.json), or one record per line (the RHEx server's mongoexport fixture,
/// pds_records_500.ndjson). Which one is decided from the first lines: if the first non-blank line is
/// a whole JSON value, or the second one is (so the first is a broken record), the file is
/// line-delimited and every non-blank line is a record; otherwise the whole file is one document.
///
/// Each record comes with the 1-based number of the line it starts on. A bad record is an item with
/// its error, and reading goes on with the next line; only I/O failures throw. Memory is bounded: one
/// read buffer and one line (at most `limits.maxDocumentBytes`; a longer line is skipped unread into
/// memory and reported as `tooLarge`), or for a one-record file, the document itself, which is refused
/// by its size before it is read when it is over the limit.
public final class RecordFileReader {
    public struct Item: Sendable {
        /// The line the record starts on.
        public let line: Int
        public let result: Result<PatientRecord, RecordParseError>
    }

    public enum Layout: Sendable, Equatable {
        /// One record, possibly over many lines.
        case document
        /// One record per line.
        case lines
    }

    public let path: String
    public let parser: RecordParser
    private let descriptor: Int32
    private var lines: LineReader
    private var pending: [(number: Int, line: LineReader.Line)] = []
    private var detectedLayout: Layout?
    private var finished = false

    public init(path: String, parser: RecordParser = RecordParser()) throws(RecordFileError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            close(descriptor)
            throw .cannotOpen(path: path, reason: "is a directory")
        }
        self.path = path
        self.parser = parser
        self.descriptor = descriptor
        // A line may carry its terminator (`\r\n`) beyond the document limit.
        lines = LineReader(descriptor: descriptor, path: path, maxLineBytes: parser.limits.maxDocumentBytes + 2)
    }

    deinit {
        close(descriptor)
    }

    /// How the file is laid out; known after the first call to `next()`.
    public var layout: Layout? { detectedLayout }

    /// The next record (or the error of a bad one), or nil at the end of the file.
    public func next() throws(RecordFileError) -> Item? {
        guard !finished else { return nil }
        if detectedLayout == nil {
            let layout = try detectLayout()
            detectedLayout = layout
            if layout == .document { return try readDocument() }
        }
        while true {
            let number: Int
            let line: LineReader.Line
            if !pending.isEmpty {
                (number, line) = pending.removeFirst()
            } else if let next = try lines.nextLine() {
                (number, line) = (lines.lineNumber, next)
            } else {
                finished = true
                return nil
            }
            switch line {
            case let .tooLong(length):
                return Item(line: number, result: .failure(.tooLarge(bytes: length, maxBytes: parser.limits.maxDocumentBytes)))
            case var .bytes(bytes):
                if RecordFileReader.isBlank(bytes) { continue }
                // The terminator is not part of the record (and must not count against its size).
                if bytes.last == 0x0A { bytes.removeLast() }
                if bytes.last == 0x0D { bytes.removeLast() }
                return Item(line: number, result: Result { () throws(RecordParseError) -> PatientRecord in
                    try parser.parse(bytes)
                })
            }
        }
    }

    /// Reads all remaining records.
    public func readAll() throws(RecordFileError) -> [Item] {
        var items: [Item] = []
        while let item = try next() { items.append(item) }
        return items
    }

    // MARK: Layout

    /// Reads up to the second non-blank line (kept in `pending`) to decide the layout.
    private func detectLayout() throws(RecordFileError) -> Layout {
        var nonBlank: [LineReader.Line] = []
        while nonBlank.count < 2, let line = try lines.nextLine() {
            pending.append((lines.lineNumber, line))
            switch line {
            case .tooLong:
                // Only a line-delimited file has a line this long: a document would be too large.
                return .lines
            case .bytes:
                if RecordFileReader.isContent(line) { nonBlank.append(line) }
            }
        }
        for line in nonBlank {
            if case let .bytes(bytes) = line, JSONBalance.isCompleteValue(bytes) { return .lines }
        }
        return nonBlank.isEmpty ? .lines : .document
    }

    /// The whole file as one record: the lines already read, then the rest.
    private func readDocument() throws(RecordFileError) -> Item? {
        finished = true
        let firstLine = pending.first(where: { RecordFileReader.isContent($0.line) })?.number ?? 1
        let limit = parser.limits.maxDocumentBytes
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, Int(status.st_size) > limit {
            // Refuse by size before reading the rest into memory.
            return Item(line: firstLine, result: .failure(.tooLarge(bytes: Int(status.st_size), maxBytes: limit)))
        }
        var document: [UInt8] = []
        for (_, line) in pending {
            if case let .bytes(bytes) = line { document.append(contentsOf: bytes) }
        }
        pending = []
        guard document.count <= limit, let rest = try lines.readRest(maxBytes: limit - document.count) else {
            // Not a regular file (a pipe), so its size was unknown: all we know is that it is over.
            return Item(line: firstLine, result: .failure(.tooLarge(bytes: limit + 1, maxBytes: limit)))
        }
        document.append(contentsOf: rest)
        return Item(line: firstLine, result: Result { () throws(RecordParseError) -> PatientRecord in
            try parser.parse(document)
        })
    }

    private static func isContent(_ line: LineReader.Line) -> Bool {
        if case let .bytes(bytes) = line { return !isBlank(bytes) }
        return true
    }

    private static func isBlank(_ bytes: [UInt8]) -> Bool {
        bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }
}
