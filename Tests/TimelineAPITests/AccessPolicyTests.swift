import Foundation
import HealthRecord
import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// Who may see the record: sessions, tokens, locking, Host and Origin checks, password slowdown.
@Suite("Access policy")
struct AccessPolicyTests {
    static let record = PatientRecord.record("acc", name: "Secret Patient", entries: [
        .entry(.condition, "Confidential Diagnosis", id: "e_1", at: 1_293_900_000),
    ])

    struct Route: Sendable, CustomTestStringConvertible {
        let method: String, target: String, body: String?
        var testDescription: String { "\(method) \(target)" }
    }

    static let patientRoutes: [Route] = [
        Route(method: "GET", target: "/timeline.json?page=all", body: nil),
        Route(method: "POST", target: "/timeline.json?key=Levels", body: "pain=1"),
        Route(method: "GET", target: "/timeline/entries/t_x", body: nil),
        Route(method: "DELETE", target: "/timeline/entries/t_x", body: nil),
        Route(method: "GET", target: "/patients.json", body: nil),
        Route(method: "POST", target: "/patients/current", body: "id=x"),
        Route(method: "GET", target: "/patients/\(Patient.id(sourceName: "files", recordID: "acc"))/export.json", body: nil),
        Route(method: "POST", target: "/lock", body: ""),
        Route(method: "GET", target: "/nowhere", body: nil),
    ]

    func send(_ served: ServedApp, _ route: Route, headers: [String: String] = [:]) async throws -> HTTPTestClient.Response {
        var h = headers
        if route.body != nil { h["Content-Type"] = "application/x-www-form-urlencoded" }
        return try await served.client.send(route.method, route.target, headers: h, body: Array((route.body ?? "").utf8))
    }

    func signIn(_ served: ServedApp, password: String = "pw") async throws -> (HTTPTestClient.Response, cookie: String?) {
        let response = try await served.client.post("/session", json: #"{"password": "\#(password)"}"#)
        let cookie = response.header("Set-Cookie")?.split(separator: ";").first.map(String.init)
        return (response, cookie)
    }

    @Test("every patient route without credentials is 401 and carries no data", arguments: patientRoutes)
    func noCredentials(_ route: Route) async throws {
        try await ServedApp.with(records: [Self.record], policy: true) { served in
            let response = try await send(served, route)
            #expect(response.status == 401)
            #expect(response.errorCode == "unauthenticated")
            #expect(response.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(!response.text.contains("Secret") && !response.text.contains("Confidential"))
        }
    }

    @Test("a valid token and a session cookie open every route; a revoked or unknown token does not")
    func tokensAndCookies() async throws {
        try await ServedApp.with(records: [Self.record], policy: true) { served in
            let (token, info) = try await served.store.createToken(name: "test")
            let bearer = ["Authorization": "Bearer \(token)"]
            #expect(try await served.client.get("/timeline.json?page=all", headers: bearer).status == 200)
            #expect(try await served.client.get("/patients.json", headers: bearer).text.contains("Secret Patient"))
            #expect(try await served.client.get("/patients.json", headers: ["Authorization": "Bearer hrd_notatoken"]).status == 401)
            #expect(try await served.client.get("/patients.json", headers: ["Authorization": "Basic \(token)"]).status == 401)

            // A first visit, signed out: the app asks for its state and must not see an error status.
            let firstVisit = try await served.client.get("/session")
            #expect(firstVisit.status == 200)
            #expect(firstVisit.object["signed_in"] as? Bool == false && firstVisit.object["locked"] as? Bool == false)

            let (signedIn, cookie) = try await signIn(served)
            #expect(signedIn.status == 200)
            let setCookie = try #require(signedIn.header("Set-Cookie"))
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/"))
            #expect(!setCookie.contains("Expires") && !setCookie.contains("Max-Age"))
            let withCookie = ["Cookie": try #require(cookie)]
            #expect(try await served.client.get("/timeline.json?page=all", headers: withCookie).status == 200)
            #expect(try await served.client.get("/session", headers: withCookie).object["signed_in"] as? Bool == true)

            #expect(try await served.store.revokeToken(id: info.id))
            #expect(try await served.client.get("/patients.json", headers: bearer).status == 401)

            #expect(try await served.client.send("DELETE", "/session", headers: withCookie).status == 204)
            #expect(try await served.client.get("/patients.json", headers: withCookie).status == 401)
        }
    }

    @Test("locked: patient routes are 423 even with a token; signing in unlocks; then 200")
    func lockedThenUnlocked() async throws {
        try await ServedApp.with(records: [Self.record], policy: true, locked: true) { served in
            #expect(try await served.client.get("/healthz").object["locked"] as? Bool == true)
            let locked = try await served.client.get("/patients.json", headers: ["Authorization": "Bearer hrd_anything"])
            #expect(locked.status == 423)
            #expect(locked.errorCode == "locked")
            #expect(try await served.client.get("/session").object["locked"] as? Bool == true)
            let (signedIn, cookie) = try await signIn(served)
            #expect(signedIn.status == 200)
            #expect(signedIn.object["locked"] as? Bool == false)
            let response = try await served.client.get("/patients.json", headers: ["Cookie": try #require(cookie)])
            #expect(response.status == 200)
            #expect(response.text.contains("Secret Patient"))
        }
    }

    @Test("locking drops access for existing sessions; signing in again makes a new session")
    func lockEndsSessions() async throws {
        try await ServedApp.with(records: [Self.record], policy: true) { served in
            let (_, cookie) = try await signIn(served)
            let headers = ["Cookie": try #require(cookie)]
            #expect(try await served.client.get("/patients.json", headers: headers).status == 200)
            #expect(try await served.client.send("POST", "/lock", headers: headers).status == 200)
            #expect(served.app.gate.isLocked)
            #expect(try await served.client.get("/patients.json", headers: headers).status == 423)
            let (again, newCookie) = try await signIn(served)
            #expect(again.status == 200)
            #expect(try await served.client.get("/patients.json", headers: headers).status == 401, "the old session ended")
            #expect(try await served.client.get("/patients.json", headers: ["Cookie": try #require(newCookie)]).status == 200)
        }
    }

    @Test("a wrong password is 401; after three, further attempts wait longer and longer without blocking")
    func passwordSlowdown() async throws {
        try await ServedApp.with(records: [Self.record], policy: true) { served in
            for _ in 0..<2 {
                let (wrong, cookie) = try await signIn(served, password: "guess")
                #expect(wrong.status == 401)
                #expect(wrong.errorCode == "wrong_password")
                #expect(cookie == nil)
            }
            #expect(try await signIn(served, password: "guess").0.status == 401) // the third: now one must wait
            let throttled = try await signIn(served) // even the right password
            #expect(throttled.0.status == 429)
            #expect(throttled.0.header("Retry-After") == "1")
            // Other requests are not held up meanwhile.
            #expect(try await served.client.get("/healthz").status == 200)
            served.setNow(served.clock.now() + 1)
            #expect(try await signIn(served, password: "guess").0.status == 401)
            #expect(try await signIn(served).0.header("Retry-After") == "2", "the wait doubles")
            served.setNow(served.clock.now() + 2)
            #expect(try await signIn(served).0.status == 200)
        }
    }

    @Test("the root, health and the web app's files answer without a session; the root redirects to the app")
    func publicRoutes() async throws {
        try await ServedApp.with(records: [Self.record], policy: true, locked: true) { served in
            let root = try await served.client.get("/")
            #expect(root.status == 302)
            #expect(root.header("Location") == "/timeline/")
            #expect(![401, 423].contains(try await served.client.get("/timeline/app.js").status), "the app's files need no session")
            #expect(try await served.client.get("/healthz").status == 200)
        }
    }

    @Test("a Host that is not a local name is 403 bad_host, on every route", arguments: ["/healthz", "/patients.json", "/timeline/"])
    func badHost(_ path: String) async throws {
        try await ServedApp.with(records: [Self.record], policy: true) { served in
            for host in ["evil.example", "evil.example:\(served.client.port)", "127.0.0.1:1", "localhost.evil.example"] {
                let response = try await served.client.get(path, headers: ["Host": host])
                #expect(response.status == 403, "Host \(host)")
                #expect(response.errorCode == "bad_host")
            }
            #expect(try await served.client.get("/healthz", headers: ["Host": "localhost:\(served.client.port)"]).status == 200)
        }
    }

    @Test("a state-changing request from a foreign Origin is 403 and stores nothing, even with a valid cookie")
    func foreignOrigin() async throws {
        try await ServedApp.with(records: [Self.record], policy: true) { served in
            let (_, cookie) = try await signIn(served)
            let headers = ["Cookie": try #require(cookie)]
            for origin in ["https://evil.example", "null", "http://127.0.0.1:1", "http://localhost.evil.example:\(served.client.port)"] {
                var h = headers
                h["Origin"] = origin
                let response = try await served.client.post("/timeline.json?key=Levels", form: "pain=9", headers: h)
                #expect(response.status == 403, "Origin \(origin)")
                #expect(response.errorCode == "bad_origin")
            }
            var crossSite = headers
            crossSite["Sec-Fetch-Site"] = "cross-site"
            #expect(try await served.client.post("/timeline.json?key=Levels", form: "pain=9", headers: crossSite).status == 403)
            let json = try await served.client.get("/timeline.json?page=all", headers: headers).object
            #expect((json["timeline_entries"] as? [Any])?.isEmpty == true)
            var sameOrigin = headers
            sameOrigin["Origin"] = "http://127.0.0.1:\(served.client.port)"
            #expect(try await served.client.post("/timeline.json?key=Levels", form: "pain=2", headers: sameOrigin).status == 201)
        }
    }

    @Test("every answer carries the security headers, and none carries CORS headers")
    func securityHeaders() async throws {
        try await ServedApp.with(records: [Self.record], policy: true) { served in
            for path in ["/healthz", "/patients.json", "/timeline/", "/nowhere"] {
                let response = try await served.client.get(path, headers: ["Origin": "https://evil.example"])
                let csp = try #require(response.header("Content-Security-Policy"), "\(path)")
                #expect(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'") && !csp.contains("unsafe-inline"))
                #expect(response.header("X-Content-Type-Options") == "nosniff")
                #expect(response.header("Referrer-Policy") == "no-referrer")
                #expect(response.headers.allSatisfy { !$0.name.lowercased().hasPrefix("access-control-") })
            }
        }
    }

    @Test("with no authenticated request for the idle time, the store locks itself and sessions end")
    func idleLock() async throws {
        try await ServedApp.with(records: [Self.record], policy: true, idleLockSeconds: 10) { served in
            let (_, cookie) = try await signIn(served)
            #expect(try await served.client.get("/patients.json", headers: ["Cookie": try #require(cookie)]).status == 200)
            served.setNow(served.clock.now() + 11)
            let task = Task { await served.app.runIdleLock() }
            defer { task.cancel() }
            for _ in 0..<50 where !served.app.gate.isLocked { try await Task.sleep(for: .milliseconds(100)) }
            #expect(served.app.gate.isLocked)
            #expect(served.app.sessions.count == 0)
        }
    }
}
