import HealthRecord

/// A SMART sign-in begun but not yet completed: what `source add --fhir` (or `POST /sources`) learnt from
/// the server's discovery and sent to its authorization page, kept until the redirect comes back with the
/// same `state`, or until it expires. Holds secrets (the PKCE verifier, a client secret): never printed.
public struct PendingSignIn: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// How long a person has to sign in (SMART's authorization codes live minutes; so does this).
    public static let lifetimeSeconds: Int64 = 10 * 60

    public var state: String
    public var name: String
    /// The FHIR base URL (also the `aud` of the authorization request).
    public var fhirURL: String
    public var clientID: String
    /// nil: a public client.
    public var clientSecret: String?
    public var redirectURI: String
    public var codeVerifier: String
    public var authorizeURL: String
    public var tokenURL: String
    public var scope: String
    public var syncIntervalSeconds: Int64?
    public var createdAt: Int64
    public var expiresAt: Int64

    public init(state: String, name: String, fhirURL: String, clientID: String, clientSecret: String?, redirectURI: String,
                codeVerifier: String, authorizeURL: String, tokenURL: String, scope: String, syncIntervalSeconds: Int64?,
                createdAt: Int64, expiresAt: Int64) {
        self.state = state
        self.name = name
        self.fhirURL = fhirURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURI = redirectURI
        self.codeVerifier = codeVerifier
        self.authorizeURL = authorizeURL
        self.tokenURL = tokenURL
        self.scope = scope
        self.syncIntervalSeconds = syncIntervalSeconds
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    public var description: String { "PendingSignIn(\(name), redacted)" }
    public var customMirror: Mirror { Mirror(self, children: ["name": name]) }
}
