import HTTPKit
import HealthRecord
import Store

/// `POST /session` (sign in; unlocks a locked store), `GET /session`, `DELETE /session`, `POST /lock`.
struct SessionRoutes {
    let app: TimelineApp

    /// A password is short; a sign-in body bigger than this is not one.
    static let bodyLimit = 4 * 1024

    func register(in router: inout Router) {
        router.get("/session") { _, context in state(context) }
        router.post("/session", bodyLimit: Self.bodyLimit) { request, context in try await signIn(request, context) }
        router.delete("/session") { _, context in signOut(context) }
        router.post("/lock", bodyLimit: Self.bodyLimit) { _, _ in lock() }
    }

    func state(_ context: RequestContext) -> Response {
        let session = context.values[SessionIDKey.self] ?? nil
        var json = JSONWriter(capacity: 64)
        json.beginObject()
        json.key("signed_in"); json.bool(session.map { app.sessions.validate($0, now: app.now()) } ?? false)
        json.key("locked"); json.bool(app.gate.isLocked)
        json.endObject()
        return .json(writer: json)
    }

    func signIn(_ request: Request, _ context: RequestContext) async throws -> Response {
        let fields = try PostBody.fields(of: request, limits: app.configuration.postLimits)
        guard case .string(let password)? = fields["password"], !password.isEmpty else {
            throw HTTPError.badRequest("Send the password as the field password.", code: "bad_body")
        }
        let address = context.peerAddress?.ipAddress ?? "local"
        let wait = app.throttle.wait(for: address, now: app.now())
        guard wait == 0 else {
            throw HTTPError(.tooManyRequests, code: "too_many_attempts",
                            message: "Too many wrong passwords; try again in \(wait) seconds.",
                            headers: ["Retry-After": String(wait)])
        }
        guard let unlocker = app.unlocker else { throw HTTPError.internalServerError }
        let key: StoreKey
        do {
            key = try await unlocker.key(for: password)
        } catch .keyVault(.wrongPassword) {
            app.throttle.recordFailure(from: address, now: app.now())
            context.logger.notice("sign-in failed: wrong password", metadata: ["peer": "\(address)"])
            throw HTTPError(.unauthorized, code: "wrong_password", message: "That password does not unlock this store.")
        } catch {
            context.logger.error("sign-in failed", metadata: ["error": "\(error)"])
            throw HTTPError.internalServerError
        }
        app.throttle.recordSuccess(from: address)
        if app.gate.isLocked {
            do { app.gate.unlock(with: try await unlocker.open(with: key)) } catch {
                context.logger.error("cannot open the store", metadata: ["error": "\(error)"])
                throw HTTPError.internalServerError
            }
            context.logger.notice("the store was unlocked by a sign-in")
        }
        let session: String
        do { session = try app.sessions.create(now: app.now()) } catch { throw HTTPError.internalServerError }
        var response = request.prefersHTML ? Response.redirect(to: "/timeline/", status: .seeOther) : state(signedIn: true)
        response.headers.add(name: "Set-Cookie", value: "\(SessionStore.cookieName)=\(session); Path=/; HttpOnly; SameSite=Strict")
        return response
    }

    func state(signedIn: Bool) -> Response {
        var json = JSONWriter(capacity: 64)
        json.beginObject()
        json.key("signed_in"); json.bool(signedIn)
        json.key("locked"); json.bool(app.gate.isLocked)
        json.endObject()
        return .json(writer: json)
    }

    func signOut(_ context: RequestContext) -> Response {
        if let session = context.values[SessionIDKey.self] ?? nil { app.sessions.end(session) }
        var response = Response(status: .noContent)
        response.headers.add(name: "Set-Cookie", value: "\(SessionStore.cookieName)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0")
        return response
    }

    /// Drops the key from memory and ends every session. Needs credentials (the policy checks them).
    func lock() -> Response {
        app.lockNow(reason: "by request")
        return state(signedIn: false)
    }
}
