/// Compact JSON from a slice of (already checked) JSON source: the insignificant whitespace between
/// tokens is dropped and every other byte is kept as the source wrote it (member order, number
/// spelling, escapes). That is what "the entry exactly as the source sent it" means for the raw JSON we
/// store: the same document, whatever the source's pretty-printing.
enum JSONCompaction {
    /// Eight spaces read as one word: a pretty-printed file's indentation is dropped a word at a time.
    private static let eightSpaces: UInt64 = 0x2020_2020_2020_2020

    /// The compact form of `slice` as a `String`, built in place with one allocation.
    static func string(_ slice: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: slice.count) { buffer in
            compact(slice, into: buffer)
        }
    }

    /// Appends the compact form of `slice` to `out`.
    static func append(_ slice: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: slice.count))
        let written = out.withUnsafeMutableBufferPointer { buffer in
            compact(slice, into: UnsafeMutableBufferPointer(rebasing: buffer[start...]))
        }
        out.removeLast(slice.count - written)
    }

    /// Writes the compact form of `slice` into `buffer` (at least `slice.count` long); returns the
    /// number of bytes written.
    private static func compact(_ slice: UnsafeBufferPointer<UInt8>, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var written = 0
        var inString = false
        var i = 0
        let count = slice.count
        while i < count {
            // Inside a string, eight bytes at a time while none of them is a quote or a backslash (the
            // scanner's test, which also stops at control bytes; checked JSON has none in a string): most of
            // a resource's bytes are in its strings. The word that holds one is copied too, up to that byte,
            // which its mask names (`JSONScanner.stringEndMask`): the string's last bytes are not copied one by one.
            if inString, let source = slice.baseAddress, let target = buffer.baseAddress {
                while i + 8 <= count {
                    let word = UnsafeRawPointer(source + i).loadUnaligned(as: UInt64.self)
                    // `written` never passes `i`, and the buffer is at least `count` long: the whole word fits.
                    UnsafeMutableRawPointer(target + written).storeBytes(of: word, as: UInt64.self)
                    let mask = JSONScanner.stringEndMask(UInt64(littleEndian: word))
                    if mask != 0 {
                        let before = mask.trailingZeroBitCount >> 3
                        written += before
                        i += before
                        break
                    }
                    written += 8
                    i += 8
                }
                guard i < count else { break }
            }
            let byte = slice[i]
            if inString {
                buffer[written] = byte
                written += 1
                if byte == UInt8(ascii: "\\") {
                    // The escaped byte cannot end the string: copy it along with its backslash.
                    i += 1
                    if i < count {
                        buffer[written] = slice[i]
                        written += 1
                    }
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else {
                switch byte {
                case 0x20, 0x0A, 0x0D, 0x09:
                    // A pretty-printed file's indentation: eight spaces at a time.
                    if let source = slice.baseAddress {
                        while i + 9 <= count, UnsafeRawPointer(source + i + 1).loadUnaligned(as: UInt64.self) == Self.eightSpaces {
                            i += 8
                        }
                    }
                default:
                    if byte == UInt8(ascii: "\"") { inString = true }
                    buffer[written] = byte
                    written += 1
                }
            }
            i += 1
        }
        return written
    }
}
