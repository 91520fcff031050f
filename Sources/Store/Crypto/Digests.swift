import HealthRecord
import CLibCrypto

/// SHA-256 on OpenSSL's libcrypto: for secrets (token hashes, PKCE challenges, the key file) and for whole
/// files, where its assembly is several times faster than the record model's Swift `SHA256`.
public enum Digests {
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = EVP_Digest(bytes, bytes.count, &digest, &length, sha256Algorithm, nil)
        return digest
    }

    /// Fetched once: `EVP_sha256()` makes OpenSSL 3 look the provider up (under a lock) on every digest.
    /// An `EVP_MD` is immutable and thread-safe once fetched.
    nonisolated(unsafe) private static let sha256Algorithm: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil) ?? EVP_sha256()
}

/// Bytes from OpenSSL's CSPRNG, for secrets: API tokens, PKCE verifiers, OAuth `state`, keys.
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        _ = RAND_bytes(&bytes, Int32(count))
        return bytes
    }
}
