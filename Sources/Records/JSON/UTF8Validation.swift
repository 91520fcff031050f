/// UTF-8 validation of a whole document before parsing. Doing it once up front, with an ASCII fast path
/// eight bytes at a time, is cheaper than checking inside every string, and it lets the scanner build
/// `String`s from byte slices without re-checking them.
enum UTF8Validation {
    /// `firstInvalidOffset(in:)`, `chunkBytes` at a time (each chunk ending where a character starts),
    /// `afterChunk` told the offset checked up to after each: for a mapped file whose pages are given back
    /// as they are checked.
    static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>, chunkBytes: Int, afterChunk: (Int) -> Void) -> Int? {
        var start = 0
        while start < bytes.count {
            var end = min(start + chunkBytes, bytes.count)
            // A character is at most 4 bytes: at most 3 continuation bytes back to where it starts.
            var back = 0
            while end < bytes.count, back < 3, bytes[end] & 0xC0 == 0x80 { end -= 1; back += 1 }
            if let bad = firstInvalidOffset(in: UnsafeBufferPointer(rebasing: bytes[start..<end])) { return start + bad }
            start = end
            afterChunk(start)
        }
        return nil
    }

    /// The offset of the first byte that does not start a well-formed UTF-8 sequence (overlong forms,
    /// surrogates and code points above U+10FFFF are rejected, per RFC 3629), or nil when all is valid.
    static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var i = 0
        while i < count {
            if i + 8 <= count {
                let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0 {
                    i += 8
                    continue
                }
            }
            let lead = base[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF:
                length = 2
            case 0xE0...0xEF:
                length = 3
                if lead == 0xE0 { low = 0xA0 } // overlong
                if lead == 0xED { high = 0x9F } // UTF-16 surrogates
            case 0xF0...0xF4:
                length = 4
                if lead == 0xF0 { low = 0x90 } // overlong
                if lead == 0xF4 { high = 0x8F } // above U+10FFFF
            default:
                return i // continuation byte, overlong 2-byte lead, or 0xF5...0xFF
            }
            guard i + length <= count else { return i }
            let second = base[i + 1]
            guard second >= low, second <= high else { return i }
            var k = 2
            while k < length {
                guard base[i + k] & 0xC0 == 0x80 else { return i }
                k += 1
            }
            i += length
        }
        return nil
    }
}
