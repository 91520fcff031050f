import CZlib
import Glibc

/// gzip (RFC 1952) on zlib: a pack's database travels as one gzip member. Inflating streams from file to
/// file in 64 KiB pieces, hashing both sides on the way, so that a pack of any size costs the same memory.
package enum Gzip {
    /// What inflating a `.gz` file into another file found.
    struct Inflated {
        /// SHA-256 (hex) of the compressed bytes as read.
        var gzSHA256: String
        /// SHA-256 (hex) of the bytes written.
        var sha256: String
        var compressedBytes: Int64
        var bytes: Int64
    }

    static let chunk = 64 * 1024

    /// Inflates the gzip file `source` into the open file `target` (at its current offset), refusing more
    /// than `limit` output bytes, a stream that ends early, and anything after the one member.
    static func inflate(_ source: String, into target: Int32, targetPath: String, limit: Int64) throws(LibraryError) -> Inflated {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw errno == ENOENT ? .fileMissing(path: source) : .system("open", source) }
        defer { close(input) }
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .gzipCorrupt(reason: "zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var gzHash = StreamingSHA256(), outHash = StreamingSHA256()
        // Buffers of our own, so that no throwing work runs inside an array's pointer closure.
        let inBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: chunk)
        let outBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: chunk)
        defer {
            inBuffer.deallocate()
            outBuffer.deallocate()
        }
        var compressed: Int64 = 0, written: Int64 = 0
        var ended = false
        while true {
            let n = Glibc.read(input, inBuffer, chunk)
            if n < 0 {
                if errno == EINTR { continue }
                throw .system("read", source)
            }
            if n == 0 { break }
            compressed += Int64(n)
            gzHash.update(UnsafeRawBufferPointer(start: inBuffer, count: n))
            // Bytes after the end of the member: hashed (the gz hash covers the whole file), then refused.
            if ended { throw .gzipCorrupt(reason: "it has data after the end of the compressed stream") }
            stream.next_in = inBuffer
            stream.avail_in = uInt(n)
            var status: Int32 = Z_OK
            repeat {
                stream.next_out = outBuffer
                stream.avail_out = uInt(chunk)
                status = CZlib.inflate(&stream, Z_NO_FLUSH)
                let produced = chunk - Int(stream.avail_out)
                guard status == Z_OK || status == Z_STREAM_END || (status == Z_BUF_ERROR && produced == 0) else {
                    throw .gzipCorrupt(reason: "zlib error \(status)")
                }
                if produced > 0 {
                    written += Int64(produced)
                    guard written <= limit else { throw .databaseTooLarge(limit: limit) }
                    let part = UnsafeRawBufferPointer(start: outBuffer, count: produced)
                    outHash.update(part)
                    try PackFiles.writeAll(target, part, path: targetPath)
                }
            } while status != Z_STREAM_END && (stream.avail_in > 0 || stream.avail_out == 0)
            if status == Z_STREAM_END {
                ended = true
                if stream.avail_in > 0 { throw .gzipCorrupt(reason: "it has data after the end of the compressed stream") }
            }
        }
        guard ended else { throw .gzipCorrupt(reason: compressed == 0 ? "it is empty" : "it ends before the compressed stream does") }
        return Inflated(gzSHA256: gzHash.finishHex(), sha256: outHash.finishHex(), compressedBytes: compressed, bytes: written)
    }

    /// Compresses `bytes` into one gzip member, level 9, with no name and no time in the header (the
    /// same input gives the same bytes). For the pack tool.
    package static func compress(_ bytes: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        guard deflateInit2_(&stream, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return nil
        }
        defer { deflateEnd(&stream) }
        let (status, output) = pump(&stream, bytes, limit: Int.max, finishing: true) { deflate(&$0, Z_FINISH) }
        return status == Z_STREAM_END ? output : nil
    }

    /// Inflates a whole small gzip file held in memory (the project's copy of the content), at most `limit`
    /// bytes out. For the pack tool.
    package static func decompress(_ bytes: [UInt8], limit: Int = 256 << 20) -> [UInt8]? {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        let (status, output) = pump(&stream, bytes, limit: limit, finishing: false) { CZlib.inflate(&$0, Z_NO_FLUSH) }
        guard status == Z_STREAM_END, stream.avail_in == 0, output.count <= limit else { return nil }
        return output
    }

    /// zlib's loop over bytes held in memory: feeds all of `bytes` to `step` (deflate or inflate) and
    /// collects its output `chunk` by `chunk` while it answers `Z_OK`, stopping once past `limit` output
    /// bytes. A `finishing` step (deflate with `Z_FINISH`) is called until it says the stream ended;
    /// another stops too when it has used all its input and had room left. Returns the last status.
    private static func pump(_ stream: inout z_stream, _ bytes: [UInt8], limit: Int, finishing: Bool,
                             step: (inout z_stream) -> Int32) -> (status: Int32, output: [UInt8]) {
        var output: [UInt8] = []
        var outBuffer = [UInt8](repeating: 0, count: chunk)
        var input = bytes
        var status: Int32 = Z_OK
        input.withUnsafeMutableBufferPointer { inPointer in
            stream.next_in = inPointer.baseAddress
            stream.avail_in = uInt(inPointer.count)
            repeat {
                let produced = outBuffer.withUnsafeMutableBufferPointer { outPointer -> Int in
                    stream.next_out = outPointer.baseAddress
                    stream.avail_out = uInt(chunk)
                    status = step(&stream)
                    return chunk - Int(stream.avail_out)
                }
                output.append(contentsOf: outBuffer[0..<produced])
            } while status == Z_OK && output.count <= limit && (finishing || stream.avail_in > 0 || stream.avail_out == 0)
        }
        return (status, output)
    }
}
