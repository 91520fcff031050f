import FHIRClient
import FoundationEssentials
import HTTPKit
import ImportJobs
import Records
import HealthRecord
import Store

/// FHIR sources from the web app: `POST /sources` begins a SMART sign-in and answers the URL to open;
/// `GET /sources/callback` is where the server sends the person's browser back, and completes it.
struct SourceRoutes {
    let app: TimelineApp

    func register(in router: inout Router) {
        router.post("/sources", bodyLimit: app.configuration.smallBodyLimit) { request, _ in try await begin(request) }
        router.get("/sources/callback") { request, _ in try await callback(request) }
    }

    static let unknownSignIn = HTTPError(.badRequest, code: "unknown_sign_in",
                                         message: "This sign-in is unknown or has expired (it lasts 10 minutes): add the source again.")

    /// `{"name", "fhir", "client_id"}` (and `"sync_interval"` in minutes) → `201 {"name", "authorize_url", "expires_at"}`.
    func begin(_ request: Request) async throws -> Response {
        let object = try JSONObjectBody.parse(request, limit: app.configuration.smallBodyLimit, depth: 1, what: "the source")
        func text(_ key: String) -> String? { if case .string(let value)? = object[key] { return value }; return nil }
        for member in object.members where !["name", "fhir", "client_id", "sync_interval"].contains(member.key) {
            throw Self.bad("A FHIR source takes name, fhir, client_id and sync_interval, not \(member.key.prefix(40)).")
        }
        guard let name = text("name"), Source.isValidName(name), name != Source.filesSourceName else {
            throw Self.bad("name must be 1 to 64 letters, digits, '.', '-' or '_', and not \"files\".")
        }
        guard let fhir = text("fhir") else { throw Self.bad("fhir must be the server's FHIR base URL.") }
        if let problem = FHIRServerURL.problem(with: fhir) { throw Self.bad(problem.prefix(1).uppercased() + problem.dropFirst() + ".") }
        guard let clientID = text("client_id"), !clientID.isEmpty, clientID.utf8.count <= 256 else {
            throw Self.bad("client_id must be the client id the server registered for hreaderd.")
        }
        var interval: Int64?
        switch object["sync_interval"] {
        case nil, .null?: interval = nil
        case .number(let minutes)? where minutes.int64.map({ (0...525_600).contains($0) }) == true: interval = minutes.int64.map { $0 * 60 }
        default: throw Self.bad("sync_interval must be whole minutes, 0 to 525600.")
        }
        let store = try app.store()
        let now = app.now()
        let signIn = SMARTSignIn(name: name, server: try FHIRServerURL(fhir), clientID: clientID, clientSecret: nil,
                                 redirectURI: callbackURL(request), syncIntervalSeconds: interval)
        let url: URL
        do {
            url = try await signIn.begin(store: store, fetcher: app.outbound, now: now)
        } catch {
            switch error {
            case .store(let reason): throw HTTPError(.conflict, code: "source_exists", message: reason.prefix(1).uppercased() + reason.dropFirst() + ".")
            case .badURL(let reason): throw Self.bad(reason)
            default: throw HTTPError(.badGateway, code: "discovery_failed", message: "Cannot begin the sign-in: \(error)")
            }
        }
        var json = JSONWriter(capacity: 512)
        json.beginObject()
        json.key("name"); json.string(name)
        json.key("authorize_url"); json.string(url.absoluteString)
        json.key("expires_at"); json.int(now + PendingSignIn.lifetimeSeconds)
        json.endObject()
        return .json(writer: json, status: .created)
    }

    /// The server's redirect back: `code` and `state` (or `error`). A known, unexpired state makes the source
    /// and queues its first sync, then sends the browser to the web app's import panel.
    func callback(_ request: Request) async throws -> Response {
        let store = try app.store()
        guard let state = request.query["state"], !state.isEmpty, state.utf8.count <= 512 else { throw Self.unknownSignIn }
        if let error = request.query["error"] {
            // Refused at the server: the pending sign-in is spent either way.
            _ = try? await store.completeSignIn(.state(state), code: "", now: Int64.max)
            throw HTTPError(.badRequest, code: "sign_in_refused",
                            message: "The server did not sign you in (\(error.prefix(64))). Add the source again to retry.")
        }
        guard let code = request.query["code"], !code.isEmpty, code.utf8.count <= 4096,
              let source = try await store.completeSignIn(.state(state), code: code, now: app.now()) else { throw Self.unknownSignIn }
        _ = try await ImportQueue.enqueue(source.name, trigger: .request, store: store, now: app.now())
        return .redirect(to: "/timeline/#imports", status: .seeOther)
    }

    /// Where the server sends the browser back: the configured address, else this request's own host.
    func callbackURL(_ request: Request) -> String {
        if let configured = app.configuration.sourceCallbackURL { return configured }
        let host = request.headers.first(name: "Host") ?? "127.0.0.1:8420"
        return "http://\(host)/sources/callback"
    }

    static func bad(_ message: String) -> HTTPError { HTTPError(.badRequest, code: "bad_source", message: message) }
}
