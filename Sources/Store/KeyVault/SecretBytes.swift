import HealthRecord
import CLibCrypto

/// Overwrites secret bytes with zeros (OPENSSL_cleanse cannot be optimised away).
func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { raw in
        if let base = raw.baseAddress { OPENSSL_cleanse(base, raw.count) }
    }
}

/// Cryptographically secure random bytes from OpenSSL's CSPRNG.
func secureRandomBytes(_ count: Int) throws(KeyVaultError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    let rc = bytes.withUnsafeMutableBytes { RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(count)) }
    guard rc == 1 else { throw .crypto("RAND_bytes failed") }
    return bytes
}
