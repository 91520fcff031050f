import Foundation
import HTTPKit
import Logging
import SandboxSupport
import Synchronization

/// A local RHEx server for tests, the demo and benchmarks, on HTTPKit: the OAuth2 token endpoint, the
/// Atom patient feed and record JSON with strong ETags and conditional GET, as the project-rhex
/// patient-data-server answers (docs/import-mapping.md). Not product code: it trusts its
/// configuration and keeps everything in memory.
///
/// Faults are switched on at run time (`inject`): error statuses, delays and hangs, truncated bodies,
/// huge bodies, `invalid_grant`, refused tokens, redirects to a sign-in page; each for the next N
/// requests of a kind, or always. `stats` counts what clients asked for, so tests can tell a record
/// that was downloaded once from one downloaded twice.
public final class RHExSandbox: Sendable {
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// 0 picks a free port.
        public var port = 0
        public var clientID = "hreaderd"
        public var clientSecret = "sandbox-client-secret"
        /// Users for the password grant: name → password.
        public var users: [String: String] = ["family": "sandbox-password"]
        /// Seconds an access token lives (`expires_in`).
        public var accessTokenLifetime: Int64 = 3600
        /// Whether a refresh grant also replaces the refresh token (rotation).
        public var rotatesRefreshTokens = true
        public var eventLoopThreads = 1

        public init() {}
    }

    /// What goes wrong, when a fault is injected.
    public enum Fault: Sendable, Equatable {
        /// Answer with this status (and a small JSON error body).
        case status(Int)
        /// Wait this many seconds, then answer as usual (a long one is a hang).
        case delay(seconds: Double)
        /// Send only the first half of the body (with a matching `Content-Length`: the document is cut).
        case truncate
        /// Send a body of this many bytes instead.
        case hugeBody(bytes: Int)
        /// `302` to the sign-in page, as a server whose session ended does.
        case redirectToSignIn
        /// The token endpoint refuses the grant: `400 {"error": "invalid_grant"}`.
        case invalidGrant
        /// `401`, whatever the token.
        case unauthorized
    }

    /// Which requests a fault applies to.
    public enum Target: Sendable, Equatable {
        case feed
        case records
        case record(String)
        case token
        case any
    }

    /// What clients asked for since the start (or `resetStats()`).
    public struct Stats: Sendable, Equatable {
        public var feedRequests = 0
        public var recordRequests = 0
        /// `200` answers with the whole record, by record id.
        public var recordsServed: [String: Int] = [:]
        public var notModified = 0
        /// Grants issued, by grant type.
        public var grantsIssued: [String: Int] = [:]
        /// Grants refused, by grant type.
        public var grantsRefused: [String: Int] = [:]
        /// `401` answers for a missing, unknown or expired access token.
        public var unauthorized = 0
        /// Requests that carried a token in the URL (never acceptable).
        public var tokensInURL = 0
        /// Requests for JSON that did not say `Accept: application/json`.
        public var missingAccept = 0
        public var faultsServed = 0
        public var mostConcurrentRecordRequests = 0

        public init() {}
    }

    private struct FaultRule {
        var fault: Fault
        var target: Target
        /// nil: always.
        var remaining: Int?
    }

    private struct State {
        var records: [String: SandboxRecord] = [:]
        var order: [String] = []
        var faults: [FaultRule] = []
        var accessTokens: [String: Int64] = [:]
        var refreshTokens: [String: String] = [:]
        var codes: [String: (user: String, redirectURI: String?)] = [:]
        var stats = Stats()
        var recordsInFlight = 0
    }

    public let configuration: Configuration
    private let state: Mutex<State>
    private let listener = SandboxListener(label: "rhex-sandbox")

    public init(configuration: Configuration = Configuration(), records: [SandboxRecord] = []) {
        self.configuration = configuration
        var initial = State()
        for record in records where initial.records[record.id] == nil {
            initial.records[record.id] = record
            initial.order.append(record.id)
        }
        state = Mutex(initial)
    }

    // MARK: - Running

    /// Starts listening; returns the port.
    @discardableResult
    public func start() async throws -> Int {
        try await listener.start(host: configuration.host, port: configuration.port,
                                 eventLoopThreads: configuration.eventLoopThreads, router: router())
    }

    /// Stops listening; delayed answers in flight end at once.
    public func stop() async {
        await listener.stop()
    }

    public var port: Int { listener.port }

    /// `http://127.0.0.1:PORT/`: the base URL to give `hreaderd source add --url`.
    public var baseURL: String { "http://\(configuration.host):\(port)/" }

    // MARK: - Records

    public var recordIDs: [String] { state.withLock { $0.order } }

    public func record(id: String) -> SandboxRecord? { state.withLock { $0.records[id] } }

    /// Adds a record, or replaces the one with its id (its ETag changes with its bytes).
    public func setRecord(_ record: SandboxRecord) {
        state.withLock { state in
            if state.records.updateValue(record, forKey: record.id) == nil { state.order.append(record.id) }
        }
    }

    public func removeRecord(id: String) {
        state.withLock { state in
            state.records[id] = nil
            state.order.removeAll { $0 == id }
        }
    }

    // MARK: - Faults and tokens

    /// Makes the next `times` matching requests (nil: every one) go wrong with `fault`. Faults apply in
    /// the order they were injected, one per request.
    public func inject(_ fault: Fault, on target: Target = .any, times: Int? = 1) {
        state.withLock { $0.faults.append(FaultRule(fault: fault, target: target, remaining: times)) }
    }

    public func clearFaults() { state.withLock { $0.faults.removeAll() } }

    /// Every access token issued so far stops working (as if they had all expired); refresh tokens stay.
    public func expireAccessTokens() { state.withLock { $0.accessTokens.removeAll() } }

    /// Refresh tokens stop working too: the user has to sign in again.
    public func revokeRefreshTokens() { state.withLock { $0.refreshTokens.removeAll() } }

    /// An authorization code for `user`, as `/oauth2/authorize` would redirect with.
    public func issueAuthorizationCode(for user: String, redirectURI: String? = nil) -> String {
        let code = Self.randomToken(prefix: "code")
        state.withLock { $0.codes[code] = (user, redirectURI) }
        return code
    }

    public var stats: Stats { state.withLock { $0.stats } }

    public func resetStats() { state.withLock { $0.stats = Stats() } }

    // MARK: - Routes

    private func router() -> Router {
        var router = Router()
        router.get("/") { [self] request, _ in try await feed(request) }
        router.post("/oauth2/token", bodyLimit: 16 * 1024) { [self] request, _ in try await token(request) }
        router.get("/oauth2/authorize") { [self] request, _ in authorize(request) }
        router.get("/records/{id}/c32/{file}") { [self] request, context in
            try await record(request, id: try context.parameters.require("id"), file: try context.parameters.require("file"))
        }
        router.get("/records/{id}/root.xml") { [self] request, context in
            try await root(request, id: try context.parameters.require("id"))
        }
        router.get("/users/sign_in") { _, _ in
            .text("<!doctype html><title>Sign in</title><form method=post><input name=password type=password></form>",
                  contentType: "text/html; charset=utf-8")
        }
        return router
    }

    /// The fault for this request, if one applies (and counts it down).
    private func takeFault(for target: Target) -> Fault? {
        state.withLock { state -> Fault? in
            guard let index = state.faults.firstIndex(where: { rule in
                rule.remaining != 0 && Self.matches(rule.target, target)
            }) else { return nil }
            if let remaining = state.faults[index].remaining { state.faults[index].remaining = remaining - 1 }
            state.stats.faultsServed += 1
            return state.faults[index].fault
        }
    }

    private static func matches(_ rule: Target, _ request: Target) -> Bool {
        switch (rule, request) {
        case (.any, _): return true
        case (.records, .record): return true
        case let (.record(a), .record(b)): return a == b
        case (.feed, .feed), (.token, .token): return true
        default: return false
        }
    }

    /// Applies a fault that replaces the answer; nil when the answer goes ahead (after a delay, perhaps).
    private func apply(_ fault: Fault?) async -> Response? {
        guard let fault else { return nil }
        switch fault {
        case .status(let code):
            return .error(HTTPResponseStatus(statusCode: code), code: "sandbox_fault", message: "Injected \(code).")
        case .delay(let seconds):
            await pause(seconds)
            return nil
        case .hugeBody(let bytes):
            return Self.hugeBody(bytes)
        case .redirectToSignIn:
            return .redirect(to: "/users/sign_in")
        case .unauthorized:
            return Self.unauthorizedAnswer()
        case .truncate, .invalidGrant:
            return nil
        }
    }

    /// Sleeps in small steps, so that `stop()` ends a hang at once; so does the handler's cancellation
    /// (the client went away).
    private func pause(_ seconds: Double) async {
        let end = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while ContinuousClock.now < end, listener.isRunning {
            do { try await Task.sleep(for: min(.milliseconds(50), end - ContinuousClock.now)) } catch { return }
        }
    }

    static func hugeBody(_ count: Int) -> Response {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(count)
        let head = Array(#"{"_id":"huge","padding":""#.utf8)
        buffer.writeBytes(head)
        buffer.writeRepeatingByte(UInt8(ascii: "x"), count: max(0, count - head.count - 2))
        buffer.writeBytes(Array(#""}"#.utf8))
        return .json(buffer)
    }

    static func unauthorizedAnswer() -> Response {
        var response = Response.error(.unauthorized, code: "invalid_token", message: "The access token is missing, unknown or expired.")
        response.headers.replaceOrAdd(name: "WWW-Authenticate", value: #"Bearer error="invalid_token""#)
        return response
    }

    /// Checks the bearer token; a `401` answer when it does not do.
    private func authorization(_ request: Request) -> Response? {
        let now = Self.now()
        return state.withLock { state -> Response? in
            if request.query["access_token"] != nil {
                state.stats.tokensInURL += 1
                state.stats.unauthorized += 1
                return Self.unauthorizedAnswer()
            }
            guard let header = request.headers.first(name: "Authorization"), header.lowercased().hasPrefix("bearer ") else {
                state.stats.unauthorized += 1
                return Self.unauthorizedAnswer()
            }
            let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
            guard let expiresAt = state.accessTokens[token], expiresAt > now else {
                state.stats.unauthorized += 1
                return Self.unauthorizedAnswer()
            }
            return nil
        }
    }

    // MARK: The feed

    private func feed(_ request: Request) async throws -> Response {
        state.withLock { $0.stats.feedRequests += 1 }
        let fault = takeFault(for: .feed)
        if let answer = await apply(fault) { return answer }
        if let refusal = authorization(request) { return refusal }
        let records = state.withLock { state in state.order.compactMap { state.records[$0] } }
        let port = listener.port
        var xml = AtomFeed.document(records: records, base: "http://\(configuration.host):\(port)", updated: Self.now())
        if fault == .truncate { xml = Array(xml.prefix(xml.count / 2)) }
        var response = Response(status: .ok, headers: ["Content-Type": "application/atom+xml; charset=utf-8"], body: .bytes(ByteBuffer(bytes: xml)))
        response.headers.add(name: "Cache-Control", value: "private, no-cache")
        return response
    }

    // MARK: Records

    private func record(_ request: Request, id: String, file: String) async throws -> Response {
        let concurrent = state.withLock { state -> Int in
            state.stats.recordRequests += 1
            state.recordsInFlight += 1
            state.stats.mostConcurrentRecordRequests = max(state.stats.mostConcurrentRecordRequests, state.recordsInFlight)
            return state.recordsInFlight
        }
        _ = concurrent
        defer { state.withLock { $0.recordsInFlight -= 1 } }
        let fault = takeFault(for: .record(id))
        if let answer = await apply(fault) { return answer }
        if let refusal = authorization(request) { return refusal }
        let accept = request.headers[canonicalForm: "Accept"].map { $0.lowercased() }
        if !accept.contains(where: { $0.contains("application/json") }) {
            state.withLock { $0.stats.missingAccept += 1 }
            return .error(.notAcceptable, code: "not_acceptable", message: "Ask for application/json.")
        }
        guard file == id + ".json", let record = state.withLock({ $0.records[id] }) else { throw HTTPError.notFound }
        if let condition = request.headers.first(name: "If-None-Match"), Self.matches(condition, etag: record.etag) {
            state.withLock { $0.stats.notModified += 1 }
            return Response(status: .notModified, headers: ["ETag": record.etag])
        }
        var bytes = record.bytes
        if fault == .truncate { bytes = Array(bytes.prefix(bytes.count / 2)) }
        state.withLock { $0.stats.recordsServed[id, default: 0] += 1 }
        var response = Response.json(ByteBuffer(bytes: bytes))
        response.headers.add(name: "ETag", value: record.etag)
        response.headers.add(name: "Cache-Control", value: "private, no-cache")
        return response
    }

    private func root(_ request: Request, id: String) async throws -> Response {
        if let refusal = authorization(request) { return refusal }
        guard state.withLock({ $0.records[id] }) != nil else { throw HTTPError.notFound }
        let body = #"<?xml version="1.0" encoding="UTF-8"?><root xmlns="http://projecthdata.org/hdata/schemas/2009/06/core"><id>"#
            + AtomFeed.escape(id) + "</id></root>"
        return .text(body, contentType: "application/xml; charset=utf-8")
    }

    /// Whether an `If-None-Match` value names `etag` (weak comparison, as RFC 9110 §13.1.2 asks).
    static func matches(_ condition: String, etag: String) -> Bool {
        let bare = { (tag: Substring) -> Substring in tag.hasPrefix("W/") ? tag.dropFirst(2) : tag }
        return condition.split(separator: ",").contains { part in
            let tag = part.trimmingCharacters(in: .whitespaces)
            return tag == "*" || bare(Substring(tag)) == bare(Substring(etag))
        }
    }

    // MARK: OAuth2

    private func token(_ request: Request) async throws -> Response {
        let fault = takeFault(for: .token)
        if let answer = await apply(fault), fault != .invalidGrant { return answer }
        guard let text = request.bodyText, let form = try? Query(parsing: text) else {
            return Self.oauthError(.badRequest, "invalid_request")
        }
        guard form["client_id"] == configuration.clientID, form["client_secret"] == configuration.clientSecret else {
            return Self.oauthError(.unauthorized, "invalid_client")
        }
        let grant = form["grant_type"] ?? ""
        if fault == .invalidGrant {
            state.withLock { $0.stats.grantsRefused[grant, default: 0] += 1 }
            return Self.oauthError(.badRequest, "invalid_grant")
        }
        let user: String?
        var keepRefresh: String?
        switch grant {
        case "password":
            if let name = form["username"], let password = configuration.users[name], password == form["password"] {
                user = name
            } else {
                user = nil
            }
        case "authorization_code":
            user = state.withLock { state -> String? in
                guard let code = form["code"], let issued = state.codes.removeValue(forKey: code) else { return nil }
                if let expected = issued.redirectURI, expected != form["redirect_uri"] { return nil }
                return issued.user
            }
        case "refresh_token":
            user = state.withLock { state -> String? in
                guard let token = form["refresh_token"], let owner = state.refreshTokens[token] else { return nil }
                if configuration.rotatesRefreshTokens {
                    state.refreshTokens[token] = nil
                } else {
                    keepRefresh = token
                }
                return owner
            }
        default:
            return Self.oauthError(.badRequest, "unsupported_grant_type")
        }
        guard let user else {
            state.withLock { $0.stats.grantsRefused[grant, default: 0] += 1 }
            return Self.oauthError(.badRequest, "invalid_grant")
        }
        let access = Self.randomToken(prefix: "at")
        let refresh = keepRefresh ?? Self.randomToken(prefix: "rt")
        let expiresAt = Self.now() + configuration.accessTokenLifetime
        state.withLock { state in
            state.accessTokens[access] = expiresAt
            state.refreshTokens[refresh] = user
            state.stats.grantsIssued[grant, default: 0] += 1
        }
        let body = #"{"access_token":"\#(access)","token_type":"bearer","expires_in":\#(configuration.accessTokenLifetime),"refresh_token":"\#(refresh)"}"#
        var response = Response.json(body)
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }

    /// Auto-approves as the first user (or `user=`) and redirects back with a code, as a signed-in
    /// user's browser would see it.
    private func authorize(_ request: Request) -> Response {
        guard request.query["client_id"] == configuration.clientID, let redirect = request.query["redirect_uri"],
              let user = request.query["user"] ?? configuration.users.keys.sorted().first else {
            return .error(.badRequest, code: "invalid_request", message: "client_id and redirect_uri are required.")
        }
        let code = issueAuthorizationCode(for: user, redirectURI: redirect)
        var location = redirect + (redirect.contains("?") ? "&" : "?") + "code=" + code
        if let state = request.query["state"] { location += "&state=" + (state.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") }
        return .redirect(to: location)
    }

    static func oauthError(_ status: HTTPResponseStatus, _ code: String) -> Response {
        var response = Response.json(#"{"error":"\#(code)"}"#, status: status)
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }

    static func randomToken(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        return prefix + "_" + (0..<4).map { _ in String(generator.next(), radix: 16) }.joined()
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }
}
