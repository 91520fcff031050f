import FoundationEssentials
import HTTPKit
import ImportJobs
import Logging
import Modules
import HealthRecord
import Store

/// The product's HTTP side: the routes of docs/api.md over the store. The executable builds one and hands
/// its router and middleware to `HTTPServer`.
public final class TimelineApp: Sendable {
    public struct Configuration: Sendable {
        /// Calendar arithmetic (month, year, decade; `YYYY-MM-DD` ends) uses the daemon's time zone.
        public var calendar: Calendar = .current
        public var postLimits = PostLimits()
        /// The static web app, served under `/timeline/`; nil serves none.
        public var publicDirectory: String?
        public var version = "0.0.0"
        /// The largest body of `POST /patients/current` and other small JSON requests.
        public var smallBodyLimit = 4 * 1024
        /// The largest body of `PUT …/annotation`: a note is a few sentences; a megabyte is a mistake (`413`).
        public var annotationBodyLimit = 64 * 1024
        /// The largest body of a reading (`POST …/readings`, `PUT /readings/{id}`): a few numbers and a short note.
        public var readingBodyLimit = 4 * 1024
        /// The summary's modules; tests add their own.
        public var modules: ModuleCatalog = .standard
        /// Where a FHIR server sends the browser back after a sign-in begun in the web app; nil (the default):
        /// `/sources/callback` on the host the person's browser used (an allowed local name, so the session
        /// and the web app are the same origin when they come back).
        public var sourceCallbackURL: String?
        /// The memory timeline pages may keep, in bytes (decrypted patient data: dropped when the store locks).
        public var pageCacheBytes = PayloadCache.defaultBytes
        /// The `all` page and the export of a record of this many entries or more are written as they are read
        /// (`TimelineStream`, `ExportStream`), never held whole.
        public var streamedPageEntries = TimelineReader.defaultStreamedPageEntries
        /// Outbound requests the routes make themselves (SMART discovery when a source is added).
        public var outboundTimeoutSeconds: Double = 15
        /// The largest file `POST /imports/files` takes: the FHIR reader's per-file limit.
        public var uploadLimit = 64 << 20
        /// Lock the store after this many seconds without an authenticated request; 0 never does.
        public var idleLockSeconds: Int64 = 30 * 60
        public var loginThrottle = LoginThrottle.Settings()
        /// The daemon's own backups (`--backup-dir`); nil takes none.
        public var backups: BackupSchedule.Settings?
        /// The uploads' parsing threads, and how long a shutdown waits for their imports.
        public var uploads = UploadWork.Settings()
        /// The offline health library (`STATE_DIR/library/`) and its update service; nil: the library routes
        /// answer `503 no_library`.
        public var library: LibraryAccess?
        public init() {}
    }

    public let configuration: Configuration
    public let gate: StoreGate
    /// Opens the store from a password at sign-in; nil when the app has no state directory (tests).
    public let unlocker: Unlocker?
    public let hosts = HostAllowList()
    public let sessions: SessionStore
    let throttle: LoginThrottle
    let tokenUse = TokenUse()
    let tokenCache = TokenCache()
    /// The audit trail's writer (events kept while the store is locked).
    public let audit: AuditTrail
    /// The backup schedule, when the daemon takes backups.
    public let backups: BackupSchedule?
    /// The owner of uploads' parsing and import jobs (`POST /imports/files`).
    public let uploads: UploadWork
    /// The timeline's read path: window memo, payload cache, snapshot reads.
    let timeline: TimelineReader
    let logger: Logger
    /// The clock, replaceable in tests.
    let now: @Sendable () -> Int64
    /// HTTP for what routes fetch themselves (SMART discovery); libcurl starts only at its first request.
    let outbound: HTTPFetcher

    public init(configuration: Configuration, gate: StoreGate, unlocker: Unlocker? = nil, logger: Logger = Logger(label: "hreaderd"),
                now: @escaping @Sendable () -> Int64 = { Store.now() }) {
        self.configuration = configuration
        self.gate = gate
        self.unlocker = unlocker
        self.logger = logger
        self.now = now
        self.sessions = SessionStore(now: now())
        self.timeline = TimelineReader(calendar: configuration.calendar, cacheBytes: configuration.pageCacheBytes,
                                       streamedPageEntries: configuration.streamedPageEntries)
        self.throttle = LoginThrottle(settings: configuration.loginThrottle)
        let audit = AuditTrail()
        self.audit = audit
        self.backups = configuration.backups.map { settings in
            BackupSchedule(settings: settings, gate: gate, audit: audit, logger: logger, now: now)
        }
        self.uploads = UploadWork(settings: configuration.uploads, logger: logger)
        self.outbound = HTTPFetcher(timeoutSeconds: configuration.outboundTimeoutSeconds, maxConnectionsPerHost: 2)
    }

    /// The access policy, to run in front of every route.
    public func middleware() -> [any Middleware] { [AccessPolicy(app: self), AuditMiddleware(app: self)] }

    /// Drops the key from memory and ends every session.
    public func lockNow(reason: String) {
        guard !gate.isLocked else { return }
        // Sessions end first: once the gate reads locked, no session of before may still be valid.
        sessions.endAll()
        if reason != "by request" { audit.keep(AuditEvent(at: now(), action: .lock, actor: "daemon", detail: reason)) }
        gate.lock()
        timeline.forget()
        logger.notice("the store was locked (\(reason))")
    }

    /// Locks the store once no authenticated request came for `idleLockSeconds`. Runs until cancelled.
    public func runIdleLock() async {
        let limit = configuration.idleLockSeconds
        guard limit > 0 else { return }
        let interval = max(1, min(limit / 10, 30))
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(interval))
            if !gate.isLocked, now() - sessions.lastActivity >= limit {
                lockNow(reason: "idle for \(limit) s")
            }
        }
    }

    /// Every route of the product.
    public func router() throws -> Router {
        var router = Router()
        router.get("/") { _, _ in .redirect(to: "/timeline/") }
        router.get("/healthz") { [self] _, _ in health() }
        TimelineRoutes(app: self).register(in: &router)
        PatientRoutes(app: self).register(in: &router)
        SessionRoutes(app: self).register(in: &router)
        ImportRoutes(app: self).register(in: &router)
        FileUploadRoutes(app: self).register(in: &router)
        AnnotationRoutes(app: self).register(in: &router)
        LinkRoutes(app: self).register(in: &router)
        SourcePatientRoutes(app: self).register(in: &router)
        DocumentRoutes(app: self).register(in: &router)
        SearchRoutes(app: self).register(in: &router)
        AuditRoutes(app: self).register(in: &router)
        BackupRoutes(app: self).register(in: &router)
        SummaryRoutes(app: self).register(in: &router)
        ShareRoutes(app: self).register(in: &router)
        ReadingRoutes(app: self).register(in: &router)
        SourceRoutes(app: self).register(in: &router)
        LibraryRoutes(app: self).register(in: &router)
        if let directory = configuration.publicDirectory {
            router.mount("/timeline/", files: try FileServer(root: directory))
        }
        return router
    }

    func health() -> Response {
        var json = JSONWriter(capacity: 64)
        json.beginObject()
        json.key("status"); json.string("ok")
        json.key("locked"); json.bool(gate.isLocked)
        json.key("version"); json.string(configuration.version)
        json.endObject()
        return .json(writer: json)
    }

    /// The store, or `423 locked`.
    func store() throws(HTTPError) -> Store { try gate.store() }

    /// The `patient` parameter, else the current patient; `409` when the store holds none yet.
    func patientID(_ request: Request, store: Store) async throws -> String {
        if let id = request.query["patient"], !id.isEmpty { return id }
        guard let current = try await store.currentPatientID() else { throw APIError.noPatient }
        return current
    }
}

extension Response {
    /// JSON from a writer, marked not to be stored by any cache (it is patient data).
    static func json(writer: JSONWriter, status: HTTPResponseStatus = .ok) -> Response {
        .json(bytes: writer.bytes, status: status)
    }

    static func json(bytes: [UInt8], status: HTTPResponseStatus = .ok) -> Response {
        .json(buffer: ByteBuffer(bytes: bytes), status: status)
    }

    static func json(buffer: ByteBuffer, status: HTTPResponseStatus = .ok) -> Response {
        Response(status: status, headers: Self.jsonNoStore, body: .bytes(buffer))
    }

    /// Made once and shared, checked and written as bytes once: a cached page's answer neither copies nor
    /// serializes a header list of its own.
    private static let jsonNoStore = PreparedHeaders(["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"])
}

extension Request {
    /// Whether the client is a browser posting a form: it prefers HTML to JSON.
    var prefersHTML: Bool {
        let accept = headers[canonicalForm: "Accept"].map { $0.lowercased() }
        guard let html = accept.firstIndex(where: { $0.hasPrefix("text/html") }) else { return false }
        let json = accept.firstIndex { $0.hasPrefix("application/json") }
        return json.map { html < $0 } ?? true
    }

    /// The media type of the body, lower case, without parameters.
    var mediaType: String? {
        headers.first(name: "Content-Type").map {
            $0.split(separator: ";", maxSplits: 1).first.map { $0.trimmedWhitespace.lowercased() } ?? ""
        }
    }

    var bodyBytes: [UInt8] { Array(body.readableBytesView) }
}
