import HealthRecord
import CLibCrypto

/// The 256-bit raw key that encrypts the database. It lives in memory only while the store is
/// unlocked; the bytes are wiped when the last reference goes away (locking drops the key).
public final class StoreKey: @unchecked Sendable {
    public static let byteCount = 32

    // Immutable after init; only read. That is what makes the unchecked Sendable sound.
    private let storage: UnsafeMutableRawBufferPointer

    /// Takes the bytes and wipes the caller's copy.
    public init(consuming bytes: inout [UInt8]) throws(KeyVaultError) {
        guard bytes.count == Self.byteCount else {
            wipe(&bytes)
            throw .crypto("a store key has \(Self.byteCount) bytes, got \(bytes.count)")
        }
        storage = .allocate(byteCount: Self.byteCount, alignment: 16)
        storage.copyBytes(from: bytes)
        wipe(&bytes)
    }

    /// A fresh random key, for `init`.
    public static func random() throws(KeyVaultError) -> StoreKey {
        var bytes = try secureRandomBytes(byteCount)
        return try StoreKey(consuming: &bytes)
    }

    deinit {
        OPENSSL_cleanse(storage.baseAddress, storage.count)
        storage.deallocate()
    }

    /// Calls `body` with the raw bytes; do not let them escape.
    public func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try body(UnsafeRawBufferPointer(storage))
    }

    /// SQLCipher's raw-key form `x'<64 hex digits>'` as bytes, for `sqlite3_key`. The caller wipes it.
    func rawKeyLiteral() -> [UInt8] {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var literal: [UInt8] = [UInt8(ascii: "x"), UInt8(ascii: "'")]
        literal.reserveCapacity(3 + 2 * Self.byteCount)
        for byte in storage {
            literal.append(hex[Int(byte >> 4)])
            literal.append(hex[Int(byte & 0x0f)])
        }
        literal.append(UInt8(ascii: "'"))
        return literal
    }

    /// The key as 64 hex digits (for the operator's independent check with the `sqlcipher` tool).
    public func hexString() -> String {
        var literal = rawKeyLiteral()
        defer { wipe(&literal) }
        return String(decoding: literal.dropFirst(2).dropLast(), as: UTF8.self)
    }
}
