import HTTPKit
import HealthRecord
import Store

/// Records the routes' actions in the audit trail, by method and path, after the route answered: sign-ins
/// (and failed ones), sign-outs, locks, uploads (imports), sync requests, exports, deletions, annotations
/// and changes to people. It runs behind the access policy, so it knows who asked. It records ids, never
/// what a request or an answer holds.
struct AuditMiddleware: Middleware {
    let app: TimelineApp

    func handle(_ request: Request, context: RequestContext, next: NextHandler) async throws -> Response {
        let segments = request.pathSegments
        let actor = (context.values[ActorKey.self] ?? nil) ?? "unauthenticated"
        // The lock closes the store: its event is kept for the next time it is open.
        if request.method == .POST, segments == ["lock"] {
            app.audit.keep(AuditEvent(at: app.now(), action: .lock, actor: actor, detail: "by request"))
            return try await next(request, context)
        }
        let response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPError {
            if request.method == .POST, segments == ["session"], error.status == .unauthorized {
                await app.audit.record(AuditEvent(at: app.now(), action: .signInFailed, actor: "peer \(context.peerAddress?.ipAddress ?? "local")"),
                                       store: try? app.gate.store())
            }
            throw error
        }
        guard (200..<300).contains(Int(response.status.code)) || response.status == .seeOther,
              let (action, patient, detail) = Self.action(request.method, segments, response: response) else { return response }
        let who: String
        switch action {
        case .signIn: who = "peer \(context.peerAddress?.ipAddress ?? "local")"
        // /session is public: the session that signs out is known from its cookie.
        case .signOut: who = ((context.values[SessionIDKey.self] ?? nil).map(AccessPolicy.actor(session:))) ?? actor
        default: who = actor
        }
        await app.audit.record(AuditEvent(at: app.now(), action: action, actor: who, patientID: patient, detail: detail), store: try? app.gate.store())
        return response
    }

    /// Requests that are never audited go on at once; one that may be waits for its record on `handle`.
    func handleImmediately(_ request: Request, context: inout RequestContext, next: ImmediateNext) throws -> Response? {
        guard !Self.mayAudit(request.method, request.pathSegments) else { return nil }
        return try next(request, &context)
    }

    /// Whether a request may leave an event in the audit trail, whatever its answer: a lock, a sign-in (or a
    /// failed one), or an action of `action`, whose being one depends on the method and path alone.
    static func mayAudit(_ method: HTTPMethod, _ segments: [String]) -> Bool {
        if method == .POST, segments == ["lock"] || segments == ["session"] { return true }
        return action(method, segments, response: Self.anySuccess) != nil
    }

    /// What `mayAudit` asks `action` about: whether a request is audited does not depend on its answer.
    private static let anySuccess = Response(status: .ok)

    /// The action a successful request was, with its patient and a detail; nil for requests that are not audited.
    static func action(_ method: HTTPMethod, _ s: [String], response: Response) -> (AuditEvent.Action, String?, String?)? {
        switch (method, s.count) {
        case (.POST, 1) where s[0] == "session": return (.signIn, nil, nil)
        case (.DELETE, 1) where s[0] == "session": return (.signOut, nil, nil)
        case (.POST, 2) where s == ["imports", "files"]:
            return (.importFiles, nil, response.headers.first(name: "Location").map { "upload, " + $0 })
        case (.POST, 1) where s[0] == "imports": return (.sync, nil, "requested")
        case (.POST, 1) where s[0] == "backups": return nil // the schedule notes the backup itself
        case (.GET, 3) where s[0] == "patients" && s[2] == "export.json": return (.export, s[1], nil)
        case (.GET, 3) where s[0] == "patients" && (s[2] == "ips.json" || s[2] == "ccda.xml"): return (.export, s[1], s[2])
        case (.DELETE, 2) where s[0] == "patients": return (.deletion, s[1], "patient removed")
        case (.PATCH, 2) where s[0] == "patients": return (.patientChange, s[1], "names, relationship or order")
        case (.POST, 3) where s[0] == "patients" && s[2] == "links": return (.patientChange, s[1], "linked")
        case (.DELETE, 4) where s[0] == "patients" && s[2] == "links": return (.patientChange, s[1], "unlinked from \(s[3])")
        case (.POST, 3) where s[0] == "sources" && s[2] == "patients": return (.patientChange, nil, "patients chosen for source \(s[1])")
        case (.PUT, 5) where s[0] == "patients" && s[2] == "entries" && s[4] == "annotation":
            return (.annotation, s[1], "entry \(s[3])" + (response.status == .noContent ? " cleared" : ""))
        case (.DELETE, 5) where s[0] == "patients" && s[2] == "entries" && s[4] == "annotation":
            return (.annotation, s[1], "entry \(s[3]) removed")
        case (.DELETE, 3) where s[0] == "timeline" && s[1] == "entries": return (.deletion, nil, "post \(s[2])")
        case (.POST, 1) where s[0] == "sources": return (.sync, nil, "FHIR sign-in begun")
        case (.GET, 2) where s == ["sources", "callback"]: return (.sync, nil, "FHIR sign-in completed; first sync queued")
        case (.PUT, 3) where s[0] == "patients" && s[2] == "modules": return (.patientChange, s[1], "summary modules chosen")
        case (.POST, 3) where s[0] == "patients" && s[2] == "readings":
            return (.reading, s[1], response.headers.first(name: "Location").flatMap { $0.split(separator: "/").last }.map { "added \($0)" })
        case (.PUT, 2) where s[0] == "readings": return (.reading, nil, "edited \(s[1])")
        case (.DELETE, 2) where s[0] == "readings": return (.reading, nil, "deleted \(s[1])")
        default: return nil
        }
    }
}
