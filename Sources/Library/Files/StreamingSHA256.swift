import HealthRecord
import CLibCrypto

/// SHA-256 over bytes given in parts (a pack's file as it is read and inflated), on OpenSSL's libcrypto.
struct StreamingSHA256: ~Copyable {
    private let context: OpaquePointer

    init() {
        context = EVP_MD_CTX_new()
        EVP_DigestInit_ex(context, Self.algorithm, nil)
    }

    deinit { EVP_MD_CTX_free(context) }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
    }

    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest as 64 lower-case hex digits.
    consuming func finishHex() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return StableID.hex(digest)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        var hasher = StreamingSHA256()
        hasher.update(bytes)
        return hasher.finishHex()
    }

    /// Fetched once: an `EVP_MD` is immutable and thread-safe.
    nonisolated(unsafe) private static let algorithm: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil) ?? EVP_sha256()
}
