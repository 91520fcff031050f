import HealthRecord
import CZlib

/// zlib's deflate, for the imported files the store keeps: record JSON shrinks about tenfold, and every
/// byte not written is a byte SQLCipher need not encrypt, authenticate, log to the WAL and checkpoint.
/// Level 1: most of the saving at a fraction of the time (a 57 MB bundle in about a quarter second).
enum Deflate {
    static let level: Int32 = 1

    static func compress(_ bytes: [UInt8]) throws(StoreError) -> [UInt8] {
        var size = compressBound(uLong(bytes.count))
        var status = Z_OK
        // Not filled with zeros first: zlib writes what it returns, and a 60 MB file's bound is 60 MB of
        // pages touched for nothing.
        let out = [UInt8](unsafeUninitializedCapacity: Int(size)) { target, initialized in
            status = bytes.withUnsafeBufferPointer { source in
                compress2(target.baseAddress, &size, source.baseAddress, uLong(source.count), level)
            }
            initialized = status == Z_OK ? Int(size) : 0
        }
        guard status == Z_OK else { throw StoreError.io("compressing a kept file failed (zlib \(status))") }
        return out
    }

    /// The bytes of `compressed`, which must inflate to exactly `size` bytes.
    static func decompress(_ compressed: [UInt8], size: Int) throws(StoreError) -> [UInt8] {
        var length = uLongf(size)
        var out = [UInt8](repeating: 0, count: max(size, 1))
        let status = out.withUnsafeMutableBufferPointer { target in
            compressed.withUnsafeBufferPointer { source in
                uncompress(target.baseAddress, &length, source.baseAddress, uLong(source.count))
            }
        }
        guard status == Z_OK, Int(length) == size else {
            throw StoreError.io("a kept file does not inflate to its recorded size (zlib \(status)): the store may be damaged")
        }
        out.removeLast(out.count - size)
        return out
    }
}
