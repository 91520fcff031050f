import Foundation
import HTTPKit
import Logging
import SandboxSupport
import Synchronization

/// A local FHIR R4 server with SMART App Launch, on HTTPKit, for tests, the demo and benchmarks: the RHEx
/// sandbox's sibling. It serves the patients of FHIR Bundles and NDJSON files (`FHIRDataset`) behind a
/// SMART standalone launch: discovery (`.well-known/smart-configuration` and the CapabilityStatement's
/// oauth-uris), `/authorize` with PKCE (S256) and a sign-in page, `/token` (authorization code and
/// refresh grants, public or confidential client), then `Patient/{id}`, `Patient/{id}/$everything` and
/// type searches (`patient`, `_lastUpdated`, `category`, `code`, `_id`, `_count`), paged with `next` links.
/// Not product code: it trusts its configuration and keeps everything in memory.
///
/// Every resource carries `meta.versionId` and `meta.lastUpdated`, set at load to
/// `Configuration.loadedAt`; `update` and `touch` change a resource and stamp it with the sandbox clock's
/// now (`setNow`), so that a test can tell an incremental sync (`_since`, `_lastUpdated=gt…`) from a full
/// one. Faults are switched on at run time (`inject`), as in the RHEx sandbox; `stats` counts what
/// clients asked for.
public final class FHIRSandbox: Sendable {
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// 0 picks a free port.
        public var port = 0
        public var clientID = "hreaderd-fhir"
        /// Set: a confidential client, which must authenticate at the token endpoint (HTTP Basic or a
        /// `client_secret` form field). nil: a public client (PKCE only).
        public var clientSecret: String? = nil
        /// The redirect URIs the client registered; empty: any absolute http(s) URL.
        public var redirectURIs: [String] = []
        /// Who may sign in on the authorize page: name → password.
        public var users: [String: String] = ["family": "sandbox-password"]
        /// Seconds an access token lives (`expires_in`).
        public var accessTokenLifetime: Int64 = 3600
        /// Seconds an authorization code lives.
        public var codeLifetime: Int64 = 60
        /// Whether a refresh grant also replaces the refresh token (the old one is refused afterwards).
        public var rotatesRefreshTokens = true
        /// Entries a page, unless the client asks for `_count` (at most `maxPageSize`).
        public var pageSize = 50
        public var maxPageSize = 500
        /// Whether `Patient/{id}/$everything` is offered (and listed in the CapabilityStatement).
        public var offersEverything = true
        /// false: `.well-known/smart-configuration` is 404, and clients must find the endpoints in the
        /// CapabilityStatement's oauth-uris extension.
        public var smartConfiguration = true
        /// Approves every valid authorize request at once (no sign-in page), for the patient
        /// `autoApprovePatient` (nil: the first patient).
        public var autoApprove = false
        public var autoApprovePatient: String? = nil
        /// `meta.lastUpdated` of every resource as loaded, in seconds since the epoch (2026-01-01T00:00:00Z).
        public var loadedAt: Int64 = 1_767_225_600
        public var eventLoopThreads = 1

        public init() {}
    }

    /// What goes wrong, when a fault is injected.
    public enum Fault: Sendable, Equatable {
        /// Answer with this status and an OperationOutcome (an OAuth error body at the token endpoint).
        case status(Int)
        /// `429` with `Retry-After: retryAfter` (seconds).
        case tooManyRequests(retryAfter: Int)
        /// Wait this many seconds, then answer as usual (a long one is a hang).
        case delay(seconds: Double)
        /// The head promises the whole body; the client gets its first half and the connection closes.
        /// (HTTPKit sends such a body from a file in 128 KiB chunks and ends the connection at the first
        /// short one: the half is followed by spaces up to a chunk's end, and the promised length counts
        /// them too.)
        case truncate
        /// `401` as for an expired access token, whatever the token (FHIR API requests only).
        case expiredToken
        /// The refresh grant answers `400 {"error":"invalid_grant"}` (refresh requests only).
        case refuseRefresh
        /// This status with an OperationOutcome whose diagnostics are `text`.
        case operationOutcome(status: Int, text: String)
    }

    /// Which requests a fault applies to; also how `Stats.requests` counts them.
    public enum Target: String, Sendable, Hashable, CaseIterable {
        case token
        case everything
        /// Type searches (`GET /fhir/Observation?patient=…`), compartment searches too.
        case search
        /// Next pages (`/fhir/_page`).
        case page
        /// Reads by id (`GET /fhir/Patient/{id}`).
        case read
        /// `metadata` and `.well-known/smart-configuration`.
        case metadata
        /// `GET` and `POST /authorize`.
        case authorize
        /// Every request but the `/_sandbox` admin routes.
        case any
    }

    /// The parameters of an authorize request, as received.
    public struct AuthorizeQuery: Sendable, Equatable {
        public var responseType: String?
        public var clientID: String?
        public var redirectURI: String?
        public var scope: String?
        public var state: String?
        public var aud: String?
        public var codeChallenge: String?
        public var codeChallengeMethod: String?
    }

    /// What clients asked for since the start (or `resetStats()`).
    public struct Stats: Sendable, Equatable {
        /// Requests by target (never `.any`).
        public var requests: [Target: Int] = [:]
        /// Grants issued and refused, by grant type (`authorization_code`, `refresh_token`).
        public var grantsIssued: [String: Int] = [:]
        public var grantsRefused: [String: Int] = [:]
        /// Token requests refused for a missing or wrong client authentication.
        public var clientAuthenticationFailures = 0
        /// How the last token request authenticated the client: `basic`, `post` or `none`.
        public var lastClientAuthentication: String?
        /// Whether a code verifier has matched its challenge (PKCE checked), and how many did not.
        public var pkceVerified = false
        public var pkceFailures = 0
        /// Every `_since` of `$everything` and every `_lastUpdated` of a search, as received.
        public var sinceValues: [String] = []
        public var lastUpdatedValues: [String] = []
        /// Searchset pages served (first pages and next pages), and the entries in them.
        public var pagesServed = 0
        public var resourcesServed = 0
        /// `401` answers (missing, unknown or expired token), `403` (another patient, a scope that does
        /// not cover the type), `429` answers.
        public var unauthorized = 0
        public var forbidden = 0
        public var tooManyRequests = 0
        /// Requests that carried an access token in the URL query (never acceptable; refused).
        public var tokensInURL = 0
        /// FHIR API requests whose `Accept` named no JSON type.
        public var missingAccept = 0
        public var faultsServed = 0
        public var lastAuthorizeQuery: AuthorizeQuery?

        public init() {}
    }

    struct FaultRule {
        var fault: Fault
        var target: Target
        /// nil: always.
        var remaining: Int?
    }

    struct StoredResource: Sendable {
        var type: String
        var id: String
        var patientID: String?
        /// With `meta.versionId` and `meta.lastUpdated`.
        var json: JSON
        var bytes: [UInt8]
        /// Milliseconds since the epoch.
        var lastUpdated: Int64
        var version: Int
        /// `Medication/…` keys it refers to (`medicationReference`), for `$everything` and `_include`.
        var medications: [String]

        var key: String { type + "/" + id }
    }

    struct CodeGrant {
        var clientID: String
        var redirectURI: String
        var challenge: String
        var scope: String
        var patientID: String
        var expiresAt: Int64
    }

    struct TokenGrant {
        var clientID: String
        var patientID: String
        var scope: String
        /// Access tokens only.
        var expiresAt: Int64
    }

    /// A search's result, kept for its next pages.
    struct ResultSet {
        struct Entry {
            var key: String
            var include: Bool
        }

        var patientID: String
        var entries: [Entry]
        var total: Int
        /// Add the Medications the page's entries refer to (`_include=…:medication`).
        var includeMedications: Bool
        var pageSize: Int
    }

    struct State {
        var resources: [String: StoredResource] = [:]
        /// Every key, in the order the resources were read (new ones at the end).
        var order: [String] = []
        var patients: [String] = []
        /// Patient id → the keys of the resources that belong to it (not the Patient), in order.
        var compartments: [String: [String]] = [:]
        var faults: [FaultRule] = []
        var codes: [String: CodeGrant] = [:]
        var accessTokens: [String: TokenGrant] = [:]
        var refreshTokens: [String: TokenGrant] = [:]
        var resultSets: [String: ResultSet] = [:]
        var resultSetOrder: [String] = []
        var stats = Stats()
        /// The sandbox clock in milliseconds; nil: the wall clock.
        var clock: Int64?
    }

    /// Result sets kept for paging; the oldest go first (their pages answer `410`).
    static let keptResultSets = 1000

    public let configuration: Configuration
    let state: Mutex<State>
    let listener = SandboxListener(label: "fhir-sandbox")

    public init(configuration: Configuration = Configuration(), data: FHIRDataset) {
        self.configuration = configuration
        var initial = State()
        let loadedAt = configuration.loadedAt * 1000
        for resource in data.resources {
            let stored = Self.stored(type: resource.type, id: resource.id, json: resource.json, patientID: resource.patientID,
                                     version: 1, lastUpdated: loadedAt)
            Self.insert(stored, into: &initial)
        }
        state = Mutex(initial)
    }

    /// Serves documents: each a Bundle, a resource or NDJSON (see `FHIRDataset`).
    public convenience init(configuration: Configuration = Configuration(), bundles: [[UInt8]]) throws(FHIRDataset.LoadError) {
        self.init(configuration: configuration, data: try FHIRDataset(documents: bundles))
    }

    /// Serves files and folders: Bundles, NDJSON files, folders of them (see `FHIRDataset`).
    public convenience init(configuration: Configuration = Configuration(), paths: [String]) throws(FHIRDataset.LoadError) {
        self.init(configuration: configuration, data: try FHIRDataset(paths: paths))
    }

    // MARK: - Running

    /// Starts listening; returns the port.
    @discardableResult
    public func start() async throws -> Int {
        try await listener.start(host: configuration.host, port: configuration.port,
                                 eventLoopThreads: configuration.eventLoopThreads, router: router())
    }

    /// Stops listening; delayed answers in flight end at once.
    public func shutdown() async {
        await listener.stop()
    }

    public var port: Int { listener.port }

    /// `http://host:port`, without a path.
    public var origin: String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "http://\(host):\(port)"
    }

    /// `http://host:port/fhir`: the FHIR base URL (the `aud` of an authorize request).
    public var baseURL: String { origin + "/fhir" }

    public var authorizeURL: String { origin + "/authorize" }
    public var tokenURL: String { origin + "/token" }

    // MARK: - Data

    /// The ids of the patients, in the order they were read.
    public var patientIDs: [String] { state.withLock { $0.patients } }

    /// `Type/id` of the patient's resources: the Patient first, then those that belong to it, in order.
    public func resourceKeys(patient patientID: String) -> [String] {
        state.withLock { state in
            guard state.resources["Patient/" + patientID] != nil else { return [] }
            return ["Patient/" + patientID] + (state.compartments[patientID] ?? [])
        }
    }

    /// The resource as served (with its meta), or nil.
    public func resource(type: String, id: String) -> [UInt8]? {
        state.withLock { $0.resources[type + "/" + id]?.bytes }
    }

    public enum UpdateError: Error, Sendable, Equatable, CustomStringConvertible {
        case notJSON(String)
        /// The JSON's `resourceType` is not the one named.
        case wrongType(expected: String, found: String?)
        case notFound(String)

        public var description: String {
            switch self {
            case .notJSON(let reason): "not a JSON resource: \(reason)"
            case let .wrongType(expected, found): "resourceType \(found ?? "(none)") is not \(expected)"
            case .notFound(let key): "no \(key)"
            }
        }
    }

    /// Replaces a resource, or adds it when there is none of that type and id, as a new version stamped
    /// with the sandbox clock's now. Its `id` is set to `id`; its `meta` (but versionId and lastUpdated)
    /// is kept from `json`.
    public func update(resourceType: String, id: String, json: [UInt8]) throws(UpdateError) {
        var parsed: JSON
        do {
            parsed = try JSON.parse(json)
        } catch {
            throw .notJSON(error.description)
        }
        guard parsed["resourceType"]?.string == resourceType else {
            throw .wrongType(expected: resourceType, found: parsed["resourceType"]?.string)
        }
        parsed.set("id", .string(id), after: "resourceType")
        let patientID = FHIRDataset.patientID(of: FHIRDataset.Resource(type: resourceType, id: id, json: parsed, patientID: nil))
        state.withLock { state in
            let now = Self.now(state)
            let version = (state.resources[resourceType + "/" + id]?.version ?? 0) + 1
            let stored = Self.stored(type: resourceType, id: id, json: parsed, patientID: patientID, version: version, lastUpdated: now)
            Self.insert(stored, into: &state)
        }
    }

    /// Makes a resource a new version, unchanged but for its meta, stamped with the sandbox clock's now.
    public func touch(resourceType: String, id: String) throws(UpdateError) {
        let key = resourceType + "/" + id
        let found = state.withLock { state -> Bool in
            guard let current = state.resources[key] else { return false }
            let stored = Self.stored(type: current.type, id: current.id, json: current.json, patientID: current.patientID,
                                     version: current.version + 1, lastUpdated: Self.now(state))
            Self.insert(stored, into: &state)
            return true
        }
        if !found { throw .notFound(key) }
    }

    static func stored(type: String, id: String, json: JSON, patientID: String?, version: Int, lastUpdated: Int64) -> StoredResource {
        var meta = json["meta"] ?? .object([])
        if case .object = meta {} else { meta = .object([]) }
        meta.set("versionId", .string(String(version)))
        meta.set("lastUpdated", .string(Instant.format(milliseconds: lastUpdated)))
        var stamped = json
        stamped.set("meta", meta, after: "id")
        var medications: [String] = []
        for reference in json.references {
            if let target = FHIRDataset.target(of: reference), target.type == "Medication" {
                let key = "Medication/" + target.id
                if !medications.contains(key) { medications.append(key) }
            }
        }
        return StoredResource(type: type, id: id, patientID: patientID, json: stamped, bytes: stamped.bytes,
                              lastUpdated: lastUpdated, version: version, medications: medications)
    }

    /// Adds or replaces a resource, keeping the indexes right (its patient may have changed).
    static func insert(_ resource: StoredResource, into state: inout State) {
        let key = resource.key
        if let old = state.resources[key] {
            if old.patientID != resource.patientID, let patient = old.patientID, old.type != "Patient" {
                state.compartments[patient]?.removeAll { $0 == key }
            }
            if old.patientID != resource.patientID, let patient = resource.patientID, resource.type != "Patient" {
                state.compartments[patient, default: []].append(key)
            }
        } else {
            state.order.append(key)
            if resource.type == "Patient" {
                state.patients.append(resource.id)
            } else if let patient = resource.patientID {
                state.compartments[patient, default: []].append(key)
            }
        }
        state.resources[key] = resource
    }

    // MARK: - The clock

    /// Sets the sandbox clock (seconds since the epoch); it stays there until set again. Updates are
    /// stamped with it, and tokens and codes expire by it.
    public func setNow(_ epochSeconds: Int64) { state.withLock { $0.clock = epochSeconds * 1000 } }

    /// Moves the sandbox clock on (from the wall clock's now if it was not set).
    public func advanceClock(by seconds: Int64) {
        state.withLock { $0.clock = Self.now($0) + seconds * 1000 }
    }

    /// Back to the wall clock.
    public func resumeWallClock() { state.withLock { $0.clock = nil } }

    /// The sandbox clock, in seconds since the epoch.
    public var now: Int64 { state.withLock { Self.now($0) } / 1000 }

    /// Milliseconds since the epoch.
    static func now(_ state: State) -> Int64 {
        state.clock ?? Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    // MARK: - Faults, tokens, stats

    /// Makes the next `count` matching requests (nil: every one) go wrong with `fault`. Faults apply in
    /// the order they were injected, one a request.
    public func inject(_ fault: Fault, target: Target = .any, count: Int? = 1) {
        state.withLock { $0.faults.append(FaultRule(fault: fault, target: target, remaining: count)) }
    }

    public func clearFaults() { state.withLock { $0.faults.removeAll() } }

    /// Every access token issued so far stops working (as if they had all expired); refresh tokens stay.
    public func expireAccessTokens() { state.withLock { $0.accessTokens.removeAll() } }

    public var stats: Stats { state.withLock { $0.stats } }

    public func resetStats() { state.withLock { $0.stats = Stats() } }

    // MARK: - Routes

    private func router() -> Router {
        var router = Router()
        router.get("/fhir/.well-known/smart-configuration") { [self] request, _ in await smartConfigurationDocument(request) }
        router.get("/fhir/metadata") { [self] request, _ in await capabilityStatement(request) }
        router.get("/fhir/_page") { [self] request, _ in await page(request) }
        router.get("/fhir/{type}") { [self] request, context in
            await search(request, type: try context.parameters.require("type"), compartment: nil)
        }
        router.get("/fhir/{type}/{id}") { [self] request, context in
            await read(request, type: try context.parameters.require("type"), id: try context.parameters.require("id"))
        }
        router.get("/fhir/{type}/{id}/{operation}") { [self] request, context in
            let type = try context.parameters.require("type")
            let id = try context.parameters.require("id")
            let operation = try context.parameters.require("operation")
            if type == "Patient", operation == "$everything" { return await everything(request, patientID: id) }
            if type == "Patient", Self.isTypeName(operation) { return await search(request, type: operation, compartment: id) }
            return Self.outcome(.notFound, code: "not-supported", "There is no operation \(operation) on \(type).")
        }
        router.get("/fhir/**") { _, _ in
            Self.outcome(.notFound, code: "not-found", "There is nothing at this address.")
        }
        router.get("/authorize") { [self] request, _ in await authorize(request, form: request.query) }
        router.post("/authorize", bodyLimit: 16 * 1024) { [self] request, _ in await authorizePost(request) }
        router.post("/token", bodyLimit: 16 * 1024) { [self] request, _ in await token(request) }
        addAdminRoutes(to: &router)
        return router
    }

    static func isTypeName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, ("A"..."Z").contains(first) else { return false }
        return text.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("a"..."z").contains($0) }
    }

    // MARK: Answers

    static let fhirJSON = "application/fhir+json; charset=utf-8"

    static func fhir(_ bytes: [UInt8], status: HTTPResponseStatus = .ok) -> Response {
        Response(status: status, headers: ["Content-Type": fhirJSON], body: .bytes(ByteBuffer(bytes: bytes)))
    }

    /// An OperationOutcome with one issue.
    static func outcome(_ status: HTTPResponseStatus, code: String, _ text: String) -> Response {
        let severity = status.code >= 500 ? "fatal" : "error"
        let body = #"{"resourceType":"OperationOutcome","issue":[{"severity":"\#(severity)","code":"\#(code)","diagnostics":"#
            + JSON.quoted(text) + "}]}"
        return fhir(Array(body.utf8), status: status)
    }

    static func randomToken(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        return prefix + "_" + (0..<2).map { _ in
            let text = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }.joined()
    }
}
