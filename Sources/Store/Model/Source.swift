import HealthRecord
import FoundationEssentials

/// A place records come from: the built-in `files` source of `import-file`, or an RHEx server.
///
/// What is listed here is never secret: the client secret, the user's password, the authorization code
/// and the OAuth2 tokens live only in the encrypted store, and are read through `SourceSecrets` and
/// `SourceTokens` by the sync alone.
public struct Source: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case file
        case rhex
        /// A FHIR R4 patient-access server, signed in to with SMART App Launch.
        case fhir

        /// A server the daemon syncs from (not the built-in `files`).
        public var isRemote: Bool { self != .file }
    }

    /// Whether the source can sync unattended.
    public enum State: String, Sendable {
        case ok
        /// The server refused our credentials (a `401` with a fresh token, `invalid_grant`, a redirect to
        /// its sign-in page): nothing more happens until the user signs in again (`source add --update`).
        case needsSignIn = "needs_sign_in"
    }

    public var id: Int64
    public var name: String
    public var kind: Kind
    /// The server's base URL (its patient feed); nil for `files`.
    public var url: String?
    public var settings: SourceSettings
    public var state: State
    public var lastError: String?
    /// When a sync last completed.
    public var lastSyncAt: Int64?
    public var createdAt: Int64
    /// Whether the store holds a token (access or refresh) for this source.
    public var hasToken: Bool

    public init(id: Int64, name: String, kind: Kind, url: String?, settings: SourceSettings, state: State,
                lastError: String?, lastSyncAt: Int64?, createdAt: Int64, hasToken: Bool) {
        self.id = id
        self.name = name
        self.kind = kind
        self.url = url
        self.settings = settings
        self.state = state
        self.lastError = lastError
        self.lastSyncAt = lastSyncAt
        self.createdAt = createdAt
        self.hasToken = hasToken
    }

    /// Source names: what the CLI, the API and patient ids use. Short, printable, no spaces or slashes.
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            }
            && name != "." && name != ".."
    }

    /// The name of the built-in source of `import-file`.
    public static let filesSourceName = "files"
}

/// The settings of an RHEx source that are not secret, kept as JSON in `sources.settings`.
public struct SourceSettings: Sendable, Equatable, Codable {
    /// The OAuth2 client id.
    public var clientID: String
    /// The user for the password grant; nil when the source signs in with an authorization code.
    public var username: String?
    /// The redirect URI the authorization code was issued for.
    public var redirectURI: String?
    /// How often the daemon syncs this source, in seconds; nil uses the daemon's setting, 0 never.
    public var syncIntervalSeconds: Int64?
    /// Whether a sync imports every patient the server offers (true), or only those the person chose,
    /// offering the others (false). nil: a source added before there was a choice, which imports all.
    public var importAll: Bool?
    /// FHIR: the token endpoint (from SMART discovery).
    public var tokenURL: String?
    /// FHIR: the scopes asked for.
    public var scope: String?
    /// FHIR: the patient the server's token response named (`patient`): the one whose record is read.
    public var fhirPatient: String?
    /// FHIR: the server's time (a Bundle's `meta.lastUpdated`) at the start of the last complete sync: the
    /// next sync asks only for what changed since (`_since`, `_lastUpdated`).
    public var fhirSince: String?

    public init(clientID: String, username: String? = nil, redirectURI: String? = nil, syncIntervalSeconds: Int64? = nil,
                importAll: Bool? = nil, tokenURL: String? = nil, scope: String? = nil, fhirPatient: String? = nil, fhirSince: String? = nil) {
        self.clientID = clientID
        self.username = username
        self.redirectURI = redirectURI
        self.syncIntervalSeconds = syncIntervalSeconds
        self.importAll = importAll
        self.tokenURL = tokenURL
        self.scope = scope
        self.fhirPatient = fhirPatient
        self.fhirSince = fhirSince
    }

    /// Whether a sync takes every patient of the feed.
    public var importsAll: Bool { importAll ?? true }

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case username
        case redirectURI = "redirect_uri"
        case syncIntervalSeconds = "sync_interval_seconds"
        case importAll = "import_all"
        case tokenURL = "token_url"
        case scope
        case fhirPatient = "fhir_patient"
        case fhirSince = "fhir_since"
    }

    static let empty = SourceSettings(clientID: "")

    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    static func decode(_ text: String) -> SourceSettings {
        (try? JSONDecoder().decode(SourceSettings.self, from: Data(text.utf8))) ?? .empty
    }
}

/// The credentials of an RHEx source, as given at `source add`. Never printed: its description and
/// mirror say only that it is redacted.
public struct SourceSecrets: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    public var clientSecret: String
    /// For the password grant.
    public var userPassword: String?
    /// For the authorization-code grant; single use, cleared once exchanged.
    public var authorizationCode: String?
    /// PKCE (RFC 7636): the verifier of the challenge the authorization code was asked with; sent with the
    /// code, cleared with it.
    public var codeVerifier: String?

    public init(clientSecret: String, userPassword: String? = nil, authorizationCode: String? = nil, codeVerifier: String? = nil) {
        self.clientSecret = clientSecret
        self.userPassword = userPassword
        self.authorizationCode = authorizationCode
        self.codeVerifier = codeVerifier
    }

    public var description: String { "SourceSecrets(redacted)" }
    public var customMirror: Mirror { Mirror(self, children: []) }
}

/// The OAuth2 tokens of a source, as the token endpoint last gave them. Never printed.
public struct SourceTokens: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    public var accessToken: String?
    /// Epoch seconds; nil when the server did not say (the token is then used until it is refused).
    public var accessTokenExpiresAt: Int64?
    public var refreshToken: String?

    public init(accessToken: String? = nil, accessTokenExpiresAt: Int64? = nil, refreshToken: String? = nil) {
        self.accessToken = accessToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.refreshToken = refreshToken
    }

    public var description: String { "SourceTokens(redacted)" }
    public var customMirror: Mirror { Mirror(self, children: []) }
}
