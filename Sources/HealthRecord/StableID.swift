/// Stable identifiers: a prefix and the first 80 bits of SHA-256 over the parts that make a thing what it
/// is. The same parts always give the same id, across requests, re-imports and machines.
public enum StableID {
    public static func make(_ prefix: String, _ parts: [String]) -> String {
        id(prefix, digest(parts))
    }

    /// The 80 bits an id is made of, for a caller that keeps many ids in memory (10 bytes, not a string of 22).
    public static func digest(_ parts: [String]) -> Digest {
        var input: [UInt8] = []
        input.reserveCapacity(parts.reduce(0) { $0 + $1.utf8.count + 1 })
        for part in parts {
            input.append(contentsOf: part.utf8)
            input.append(0x1f) // unit separator: ["ab", "c"] and ["a", "bc"] differ
        }
        let hash = SHA256.hash(input)
        var high: UInt64 = 0
        for byte in hash[0..<8] { high = high << 8 | UInt64(byte) }
        return Digest(high: high, low: UInt16(hash[8]) << 8 | UInt16(hash[9]))
    }

    /// The id a digest stands for.
    public static func id(_ prefix: String, _ digest: Digest) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(10)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: digest.high >> UInt64(shift))) }
        bytes.append(UInt8(digest.low >> 8))
        bytes.append(UInt8(truncatingIfNeeded: digest.low))
        return prefix + "_" + hex(bytes)
    }

    /// An id's first 80 bits of SHA-256, as two integers.
    public struct Digest: Hashable, Sendable {
        public var high: UInt64
        public var low: UInt16
    }

    public static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xf)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Random ids for things that have no natural identity (posts, readings, jobs): 80 bits from the
    /// system's generator (getrandom). Secrets (tokens, PKCE verifiers) come from the store's `SecureRandom`.
    public static func random(_ prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64, low = generator.next() as UInt16
        return id(prefix, Digest(high: high, low: low))
    }
}
