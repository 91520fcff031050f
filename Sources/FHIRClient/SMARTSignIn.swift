import FoundationEssentials
import ImportJobs
import HealthRecord
import Store

/// Begins a standalone patient launch (SMART App Launch, public or confidential client): discovers the
/// server, keeps the pending sign-in (state, PKCE verifier, 10 minutes) in the store, and gives the
/// authorization URL the person opens in their own browser. The redirect back (the daemon's
/// `/sources/callback`, or a code typed into `source add NAME --auth-code`) completes it
/// (`Store.completeSignIn`); the first sync exchanges the code with the verifier.
public struct SMARTSignIn: Sendable {
    public var name: String
    public var server: FHIRServerURL
    public var clientID: String
    /// nil: a public client.
    public var clientSecret: String?
    public var redirectURI: String
    public var syncIntervalSeconds: Int64?

    public init(name: String, server: FHIRServerURL, clientID: String, clientSecret: String?, redirectURI: String, syncIntervalSeconds: Int64?) {
        self.name = name
        self.server = server
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURI = redirectURI
        self.syncIntervalSeconds = syncIntervalSeconds
    }

    /// Why a redirect URI cannot be used; nil when it can (http or https, no fragment).
    public static func problem(withRedirectURI text: String) -> String? {
        guard text.utf8.count <= 2048, let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https", components.host != nil,
              components.fragment == nil else {
            return "the redirect URI must be an http or https URL without a fragment"
        }
        return nil
    }

    /// Discovers, keeps the pending sign-in, and returns the URL to open.
    public func begin(store: Store, fetcher: HTTPFetcher, limits: ResponseLimits = ResponseLimits(),
                      now: Int64 = Store.now()) async throws(FHIRSignInError) -> URL {
        let configuration = try await SMARTConfiguration.discover(server, fetcher: fetcher, limit: limits.discoveryBytes)
        let pkce = PKCE()
        let state = PKCE.state()
        let pending = PendingSignIn(state: state, name: name, fhirURL: server.text, clientID: clientID, clientSecret: clientSecret,
                                    redirectURI: redirectURI, codeVerifier: pkce.verifier, authorizeURL: configuration.authorizeURL.absoluteString,
                                    tokenURL: configuration.tokenURL.absoluteString, scope: configuration.scope,
                                    syncIntervalSeconds: syncIntervalSeconds, createdAt: now, expiresAt: now + PendingSignIn.lifetimeSeconds)
        do { try await store.beginSignIn(pending) } catch { throw .store(error.description) }
        return Self.authorizationURL(configuration.authorizeURL, clientID: clientID, redirectURI: redirectURI, scope: configuration.scope,
                                     state: state, audience: server.text, challenge: pkce.challenge)
    }

    /// The authorization request (SMART App Launch §2.0.5): response_type, client_id, redirect_uri, scope,
    /// state, aud (the FHIR base URL), and the PKCE challenge with S256.
    public static func authorizationURL(_ endpoint: URL, clientID: String, redirectURI: String, scope: String, state: String,
                                        audience: String, challenge: String) -> URL {
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) ?? URLComponents()
        var items = components.queryItems ?? []
        items += [
            URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: clientID),
            URLQueryItem(name: "redirect_uri", value: redirectURI), URLQueryItem(name: "scope", value: scope),
            URLQueryItem(name: "state", value: state), URLQueryItem(name: "aud", value: audience),
            URLQueryItem(name: "code_challenge", value: challenge), URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        components.queryItems = items
        // `+` in a query is a space to many servers: scopes are joined by spaces, so encode it.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacing("+", with: "%2B")
        return components.url ?? endpoint
    }
}
