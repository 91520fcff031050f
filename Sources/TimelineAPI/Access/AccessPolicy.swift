import HTTPKit
import HealthRecord
import Store

/// Who may see the record (README.md, "Security in brief"; docs/api.md, "Authenticating with curl"), as one middleware in front of every route:
///
/// 1. the Host header must be an allowed local name (`403 bad_host`, against DNS rebinding);
/// 2. a state-changing request whose Origin is not the daemon's own is refused (`403 bad_origin`);
/// 3. public routes (`/healthz`, `/session`, the web app's files, a FHIR server's redirect back to
///    `/sources/callback`, which its unguessable `state` authenticates) pass;
/// 4. while the store is locked, everything else is `423 locked` (a token cannot be checked then);
/// 5. everything else needs a session cookie or an API token (`401 unauthenticated`).
struct AccessPolicy: Middleware {
    let app: TimelineApp

    static func isStateChanging(_ method: HTTPMethod) -> Bool {
        switch method {
        case .POST, .PUT, .PATCH, .DELETE: true
        default: false
        }
    }

    func handle(_ request: Request, context: RequestContext, next: NextHandler) async throws -> Response {
        var context = context
        switch try admit(request, context: &context) {
        case .admitted:
            return try await next(request, context)
        case .unknownToken(let token, let authorization, let store, let now, let background):
            // Read the counts before verifying: a revocation racing with this check invalidates the entry.
            let revocations = store.tokenRevocationCount
            let commitCount = store.commitCount
            guard let tokenID = try await store.verifyToken(token) else { throw Self.unauthenticated }
            app.tokenCache.remember(authorization, tokenID: tokenID, now: now, revocationsBefore: revocations, commitCountBefore: commitCount)
            admitToken(tokenID, actor: Self.actor(tokenID: tokenID), store: store, now: now, background: background, context: &context)
            return try await next(request, context)
        }
    }

    /// The same checks on the event loop, for a route that answers at once: a token that is not in the cache
    /// (a store read) sends the request to `handle`, before anything is noted.
    func handleImmediately(_ request: Request, context: inout RequestContext, next: ImmediateNext) throws -> Response? {
        switch try admit(request, context: &context) {
        case .admitted: return try next(request, &context)
        case .unknownToken: return nil
        }
    }

    /// What the policy decides without reading the store.
    private enum Admission {
        /// On to the route, with who asked in the context.
        case admitted
        /// A bearer token the cache does not know (by its `Authorization` header): to verify against the store.
        /// The context is as it came.
        case unknownToken(String, authorization: String, Store, now: Int64, background: Bool)
    }

    /// Steps 1 to 5, but for the store read of a token that the cache does not know; throws the refusals.
    /// Who asked goes into `context` (changed in place: a context carried in the answer was copied, and
    /// destroyed, for every request).
    private func admit(_ request: Request, context: inout RequestContext) throws -> Admission {
        guard let host = request.headers.first(name: "Host"), app.hosts.allows(host: host) else {
            throw HTTPError(.forbidden, code: "bad_host", message: "This server answers only to its local names (localhost, 127.0.0.1).")
        }
        if Self.isStateChanging(request.method) {
            if let origin = request.headers.first(name: "Origin"), !app.hosts.allows(origin: origin) {
                throw HTTPError(.forbidden, code: "bad_origin", message: "Requests that change data must come from this server's own pages.")
            }
            if let site = request.headers.first(name: "Sec-Fetch-Site"), site == "cross-site" {
                throw HTTPError(.forbidden, code: "bad_origin", message: "Requests that change data must come from this server's own pages.")
            }
        }
        if Self.isPublic(request) {
            context.values[SessionIDKey.self] = Self.sessionID(request)
            return .admitted
        }
        let store = try app.store()
        let now = app.now()
        // A page polling in the background (import status) says so: that is not a person using the store, and
        // does not keep it from locking when idle.
        let background = request.headers.first(name: Self.backgroundHeader) == "1"
        if let session = Self.sessionID(request),
           app.sessions.validate(session, now: now, active: !background) {
            context.values[SessionIDKey.self] = session
            context.values[ActorKey.self] = Self.actor(session: session)
            return .admitted
        }
        // The cache is keyed by the whole header as sent: a known token is not taken apart again.
        guard let authorization = request.headers.first(name: "Authorization") else { throw Self.unauthenticated }
        guard let known = app.tokenCache.token(for: authorization, store: store, now: now) else {
            guard let token = Self.bearerToken(authorization) else { throw Self.unauthenticated }
            return .unknownToken(token, authorization: authorization, store, now: now, background: background)
        }
        admitToken(known.id, actor: known.actor, store: store, now: now, background: background, context: &context)
        return .admitted
    }

    /// The session cookie's value, when the request sent one. An API client sends no Cookie at all: one lookup,
    /// where taking the header's list apart made an array on every request.
    private static func sessionID(_ request: Request) -> String? {
        guard request.headers.contains(name: "Cookie") else { return nil }
        return SessionStore.sessionID(fromCookieHeaders: request.headers[canonicalForm: "Cookie"].map(String.init))
    }

    /// A verified token: the store's idle clock and the token's last use noted, the actor named.
    private func admitToken(_ tokenID: String, actor: String, store: Store, now: Int64, background: Bool, context: inout RequestContext) {
        if !background { app.sessions.noteActivity(now: now) }
        if app.tokenUse.shouldRecord(tokenID, now: now) {
            // Best effort, off the request's path: a failed note of use must not fail the request. The
            // first use of a day is in the audit trail.
            Task { try? await store.touchToken(id: tokenID, at: now) }
        }
        context.values[ActorKey.self] = actor
    }

    /// How the audit trail names a token's use.
    static func actor(tokenID: String) -> String { "token:" + tokenID }

    static let unauthenticated = HTTPError(.unauthorized, code: "unauthenticated",
                                           message: "Sign in, or send an API token as Authorization: Bearer.",
                                           headers: ["WWW-Authenticate": #"Bearer realm="hreaderd""#])

    /// Routes that answer without credentials: health, sign-in, and the web app's own files.
    static func isPublic(_ request: Request) -> Bool {
        let segments = request.pathSegments
        // Compared element by element: array literals here were made on every request.
        if segments.isEmpty { return true }
        if segments.count == 1 {
            switch segments[0] {
            case "", "healthz", "session": return true
            default: break
            }
        }
        if request.method == .GET || request.method == .HEAD {
            // A FHIR server's redirect back after sign-in: cross-site, so the SameSite=Strict session cookie
            // does not come with it; the `state` it carries is the credential (and the store must be open).
            if segments.count == 2 && segments[0] == "sources" && segments[1] == "callback" { return true }
            // The web app's files; /timeline/entries/{id} is a posted entry, which is patient data.
            return segments.count >= 2 && segments[0] == "timeline" && segments[1] != "entries"
        }
        return false
    }

    /// How the audit trail names a session: a digest of it, never the cookie itself.
    static func actor(session: String) -> String { "session " + String(StableID.make("s", [session]).dropFirst(2).prefix(8)) }

    /// The header the web app sends on background polls: `1`.
    static let backgroundHeader = "X-Hreaderd-Background"

    /// The token of an `Authorization` header's value, when it is `Bearer TOKEN`.
    static func bearerToken(_ value: String) -> String? {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        // Trimmed by hand: Foundation's trimmingCharacters bridges through NSString, on every request.
        var token = parts[1]
        while let first = token.first, first == " " || first == "\t" { token = token.dropFirst() }
        while let last = token.last, last == " " || last == "\t" { token = token.dropLast() }
        return String(token)
    }
}

/// The session of the request, when it came with a valid cookie (for `DELETE /session`).
enum SessionIDKey: ContextKey {
    typealias Value = String?
}
