import CLibCrypto

/// SHA-256 from OpenSSL's libcrypto, for the sandboxes' strong ETags and PKCE challenges.
public enum SHA256 {
    public static func hash(_ message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // EVP_Digest fails only when OpenSSL cannot allocate its context; the digest then stays zero, which
        // a sandbox shows as a wrong ETag rather than a crash.
        _ = message.withUnsafeBytes { bytes in
            EVP_Digest(bytes.baseAddress, bytes.count, &digest, &length, EVP_sha256(), nil)
        }
        return digest
    }

    public static func hex(_ message: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: hash(message).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xf)]] }, as: UTF8.self)
    }
}
