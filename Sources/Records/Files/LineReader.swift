#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file descriptor line by line through a fixed buffer, so a 1 GB file costs one buffer and
/// one line of memory. A line longer than `maxLineBytes` is not kept: it is reported with its length
/// and skipped, and the next line reads normally.
struct LineReader {
    enum Line {
        /// The line's bytes including its terminator (`\n`, or none on the last line).
        case bytes([UInt8])
        /// The line was longer than allowed: it held this many bytes (its terminator not counted), which
        /// were skipped.
        case tooLong(Int)
    }

    static let chunkBytes = 1 << 20

    private let descriptor: Int32
    private let path: String
    let maxLineBytes: Int
    private var buffer: [UInt8]
    private var position = 0
    private var filled = 0
    private var atEndOfFile = false
    /// The 1-based number of the line last returned.
    private(set) var lineNumber = 0

    init(descriptor: Int32, path: String, maxLineBytes: Int) {
        self.descriptor = descriptor
        self.path = path
        self.maxLineBytes = maxLineBytes
        buffer = [UInt8](repeating: 0, count: LineReader.chunkBytes)
    }

    /// The next line, or nil at the end of the file.
    mutating func nextLine() throws(RecordFileError) -> Line? {
        var line: [UInt8] = []
        var length = 0
        var sawBytes = false
        var terminated = false
        while true {
            if position == filled {
                if atEndOfFile { break }
                try fill()
                continue
            }
            sawBytes = true
            let newline = buffer.withUnsafeBufferPointer { all -> Int? in
                guard let base = all.baseAddress,
                      let found = memchr(base + position, 0x0A, filled - position) else { return nil }
                return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            }
            let end = newline.map { $0 + 1 } ?? filled
            let count = end - position
            if length + count <= maxLineBytes {
                line.append(contentsOf: buffer[position..<end])
            } else {
                line = [] // over the limit: stop keeping it, keep counting it
            }
            length += count
            position = end
            if newline != nil {
                terminated = true
                break
            }
        }
        guard sawBytes else { return nil }
        lineNumber += 1
        if length <= maxLineBytes { return .bytes(line) }
        return .tooLong(length - (terminated ? 1 : 0))
    }

    /// Everything after the last line returned, up to `maxBytes`; nil when there is more than that
    /// (the rest is then left unread).
    mutating func readRest(maxBytes: Int) throws(RecordFileError) -> [UInt8]? {
        var rest: [UInt8] = []
        while true {
            if position == filled {
                if atEndOfFile { return rest }
                try fill()
                continue
            }
            guard rest.count + (filled - position) <= maxBytes else { return nil }
            rest.append(contentsOf: buffer[position..<filled])
            position = filled
        }
    }

    private mutating func fill() throws(RecordFileError) {
        let descriptor = self.descriptor
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                read(descriptor, raw.baseAddress, raw.count)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .readFailed(path: path, reason: String(cString: strerror(errno)))
            }
            position = 0
            filled = count
            atEndOfFile = count == 0
            return
        }
    }
}
