import CLibCrypto

/// Stable identifiers: a prefix and the first 80 bits of SHA-256 over the parts that make a thing what it
/// is. The same parts always give the same id, across requests, re-imports and machines.
public enum StableID {
    public static func make(_ prefix: String, _ parts: [String]) -> String {
        var input: [UInt8] = []
        input.reserveCapacity(parts.reduce(0) { $0 + $1.utf8.count + 1 })
        for part in parts {
            input.append(contentsOf: part.utf8)
            input.append(0x1f) // unit separator: ["ab", "c"] and ["a", "bc"] differ
        }
        return prefix + "_" + hex(sha256(input).prefix(10))
    }

    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = EVP_Digest(bytes, bytes.count, &digest, &length, sha256Algorithm, nil)
        return digest
    }

    /// Fetched once: `EVP_sha256()` makes OpenSSL 3 look the provider up (under a lock) on every digest.
    /// An `EVP_MD` is immutable and thread-safe once fetched.
    nonisolated(unsafe) private static let sha256Algorithm: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil) ?? EVP_sha256()

    static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xf)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Random ids for things that have no natural identity (posts, tokens, jobs).
    /// `count` bytes from OpenSSL's CSPRNG (secrets: PKCE verifiers, OAuth `state`).
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        _ = RAND_bytes(&bytes, Int32(count))
        return bytes
    }

    public static func random(_ prefix: String) -> String {
        var bytes = [UInt8](repeating: 0, count: 10)
        _ = RAND_bytes(&bytes, 10)
        return prefix + "_" + hex(bytes)
    }
}
