import Store

/// Proof Key for Code Exchange (RFC 7636) with S256, as SMART App Launch requires, and the `state` of
/// an authorization request: both random, base64url without padding.
public struct PKCE: Sendable, Equatable {
    /// 43 characters: 32 random bytes (RFC 7636 §4.1 asks for 43 to 128).
    public let verifier: String
    public let challenge: String

    public init() {
        self.init(verifier: Self.base64url(StableID.randomBytes(32)))
    }

    public init(verifier: String) {
        self.verifier = verifier
        self.challenge = Self.base64url(StableID.sha256(Array(verifier.utf8)))
    }

    /// A fresh `state` for one authorization request (unguessable: it is what binds the redirect back).
    public static func state() -> String { base64url(StableID.randomBytes(24)) }

    /// Base64 with the URL alphabet and no padding (RFC 4648 §5).
    public static func base64url(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            index += 3
        }
        let rest = bytes.count - index
        if rest == 1 {
            let n = UInt32(bytes[index]) << 16
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)]]
        } else if rest == 2 {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)]]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
