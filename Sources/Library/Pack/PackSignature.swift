import HealthRecord
import CLibCrypto
import FoundationEssentials

/// A publisher's Ed25519 public key, read from PEM (`-----BEGIN PUBLIC KEY-----`, SubjectPublicKeyInfo, as
/// `openssl pkey -pubout` writes it). An installation trusts a list of these.
public final class PackPublicKey: @unchecked Sendable {
    // Immutable after init; OpenSSL's EVP_PKEY may be used from several threads for verification.
    fileprivate let key: OpaquePointer
    /// The raw 32-byte public key.
    public let rawBytes: [UInt8]

    fileprivate init(key: OpaquePointer, path: String) throws(LibraryError) {
        var length = 32
        var raw = [UInt8](repeating: 0, count: 32)
        guard EVP_PKEY_is_a(key, "ED25519") == 1, EVP_PKEY_get_raw_public_key(key, &raw, &length) == 1, length == 32 else {
            EVP_PKEY_free(key)
            throw .keyInvalid(path: path, reason: "it is not an Ed25519 key")
        }
        self.key = key
        self.rawBytes = raw
    }

    deinit { EVP_PKEY_free(key) }

    /// A public key from its PEM text.
    public convenience init(pem: [UInt8], path: String = "the public key") throws(LibraryError) {
        guard let key = PEM.read(pem, { PEM_read_bio_PUBKEY($0, nil, nil, nil) }) else {
            throw .keyInvalid(path: path, reason: "no PEM public key could be read from it")
        }
        try self.init(key: key, path: path)
    }

    /// A public key from a PEM file (at most 16 KiB).
    public convenience init(file path: String) throws(LibraryError) {
        try self.init(pem: PEM.file(path), path: path)
    }

    /// An Ed25519 public key from its 32 raw bytes.
    public convenience init(raw: [UInt8]) throws(LibraryError) {
        guard raw.count == 32, let key = EVP_PKEY_new_raw_public_key_ex(nil, "ED25519", nil, raw, 32) else {
            throw .keyInvalid(path: "the raw key", reason: "an Ed25519 public key is 32 bytes")
        }
        try self.init(key: key, path: "the raw key")
    }

    /// The key in PEM (SubjectPublicKeyInfo).
    public var pem: [UInt8] { PEM.write { PEM_write_bio_PUBKEY($0, key) } }

    /// A short name of the key for messages and `verify`'s output: the first 8 bytes of SHA-256 of the raw key, hex.
    public var fingerprint: String { String(StreamingSHA256.hex(rawBytes).prefix(16)) }

    /// Whether `signature` (64 bytes) is this key's Ed25519 signature of `message`.
    public func verifies(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        guard signature.count == 64, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        // Ed25519 hashes internally: no digest is named, and the whole message goes in one call.
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else { return false }
        return EVP_DigestVerify(context, signature, 64, message, message.count) == 1
    }
}

/// A publisher's Ed25519 private key (PKCS #8 PEM, unencrypted: keep its file at mode 0600). Only the
/// pack tool signs; the daemon never holds one.
package final class PackPrivateKey: @unchecked Sendable {
    private let key: OpaquePointer

    private init(key: OpaquePointer) { self.key = key }
    deinit { EVP_PKEY_free(key) }

    /// A new random key.
    package static func generate() throws(LibraryError) -> PackPrivateKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "ED25519", nil) else {
            throw .keyInvalid(path: "a new key", reason: "OpenSSL has no Ed25519")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_generate(context, &key) == 1, let key else {
            throw .keyInvalid(path: "a new key", reason: "key generation failed")
        }
        return PackPrivateKey(key: key)
    }

    package convenience init(pem: [UInt8], path: String = "the private key") throws(LibraryError) {
        guard let key = PEM.read(pem, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else {
            throw .keyInvalid(path: path, reason: "no PEM private key could be read from it")
        }
        guard EVP_PKEY_is_a(key, "ED25519") == 1 else {
            EVP_PKEY_free(key)
            throw .keyInvalid(path: path, reason: "it is not an Ed25519 key")
        }
        self.init(key: key)
    }

    package convenience init(file path: String) throws(LibraryError) {
        try self.init(pem: PEM.file(path), path: path)
    }

    /// The private key in PKCS #8 PEM.
    package var pem: [UInt8] { PEM.write { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) } }

    package var publicKey: PackPublicKey {
        get throws(LibraryError) {
            var length = 32
            var raw = [UInt8](repeating: 0, count: 32)
            guard EVP_PKEY_get_raw_public_key(key, &raw, &length) == 1 else {
                throw .keyInvalid(path: "the private key", reason: "its public half cannot be read")
            }
            return try PackPublicKey(raw: raw)
        }
    }

    /// The 64-byte Ed25519 signature of `message`.
    package func sign(_ message: [UInt8]) throws(LibraryError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .keyInvalid(path: "the private key", reason: "OpenSSL is out of memory") }
        defer { EVP_MD_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = 64
        guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1,
              EVP_DigestSign(context, &signature, &length, message, message.count) == 1, length == 64 else {
            throw .keyInvalid(path: "the private key", reason: "signing failed")
        }
        return signature
    }
}

/// `manifest.json.sig`: the 64-byte Ed25519 signature of `manifest.json`'s exact bytes, in standard
/// base64 (RFC 4648 §4, padded: 88 characters) on one line, a newline after it.
public enum PackSignature {
    public static let maxBytes = 1024

    /// The text of a `manifest.json.sig`.
    public static func encode(_ signature: [UInt8]) -> [UInt8] {
        Array((Data(signature).base64EncodedString() + "\n").utf8)
    }

    /// The 64 bytes of a `manifest.json.sig`; whitespace around the base64 is ignored.
    public static func decode(_ text: [UInt8]) throws(LibraryError) -> [UInt8] {
        guard text.count <= maxBytes else { throw .signatureMalformed(reason: "the file is larger than \(maxBytes) bytes") }
        let trimmed = String(decoding: text, as: UTF8.self).filter { !$0.isWhitespace }
        guard let data = Data(base64Encoded: trimmed) else { throw .signatureMalformed(reason: "it is not base64") }
        guard data.count == 64 else { throw .signatureMalformed(reason: "it holds \(data.count) bytes, not 64") }
        return Array(data)
    }

    /// The trusted key that signed `manifest`, or `signatureNotVerified`.
    public static func verify(_ signature: [UInt8], of manifest: [UInt8], trustedKeys: [PackPublicKey]) throws(LibraryError) -> PackPublicKey {
        guard let key = trustedKeys.first(where: { $0.verifies(signature, of: manifest) }) else {
            throw .signatureNotVerified(trustedKeys: trustedKeys.count)
        }
        return key
    }
}

/// PEM through an OpenSSL memory BIO.
private enum PEM {
    /// A key file's bytes (at most 16 KiB); a missing file is a key error, not a pack's.
    static func file(_ path: String) throws(LibraryError) -> [UInt8] {
        do throws(LibraryError) { return try PackFiles.read(path, limit: 16 * 1024) } catch {
            if case .fileMissing = error { throw .keyInvalid(path: path, reason: "the file does not exist") }
            throw error
        }
    }

    static func read(_ pem: [UInt8], _ body: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
        pem.withUnsafeBytes { raw -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            let key = body(bio)
            ERR_clear_error()
            return key
        }
    }

    static func write(_ body: (OpaquePointer) -> Int32) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { return [] }
        defer { BIO_free(bio) }
        guard body(bio) == 1 else { return [] }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = BIO_read(bio, &buffer, Int32(buffer.count))
            if n <= 0 { break }
            out.append(contentsOf: buffer[0..<Int(n)])
        }
        return out
    }
}
