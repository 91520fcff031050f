import HealthRecord
import Store

/// Proof Key for Code Exchange (RFC 7636) with S256, as SMART App Launch requires, and the `state` of
/// an authorization request: both random, base64url without padding.
public struct PKCE: Sendable, Equatable {
    /// 43 characters: 32 random bytes (RFC 7636 §4.1 asks for 43 to 128).
    public let verifier: String
    public let challenge: String

    public init() {
        self.init(verifier: Base64URL.encode(SecureRandom.bytes(32)))
    }

    public init(verifier: String) {
        self.verifier = verifier
        self.challenge = Base64URL.encode(Digests.sha256(Array(verifier.utf8)))
    }

    /// A fresh `state` for one authorization request (unguessable: it is what binds the redirect back).
    public static func state() -> String { Base64URL.encode(SecureRandom.bytes(24)) }

}
