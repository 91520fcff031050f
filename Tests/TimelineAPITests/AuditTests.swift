import Foundation
import HealthRecord
import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// The audit trail over HTTP: each listed action leaves exactly one row, who did it is named (never by a
/// secret), no row holds record contents, and no route changes a row.
@Suite("audit trail")
struct AuditTests {
    static let record = PatientRecord.record("aud", name: "Secret Patient", birthdate: -123_456_789, entries: [
        .entry(.condition, "Confidential Diagnosis", id: "e_1", at: 1_293_900_000),
    ])
    static let other = PatientRecord.record("aud2", name: "Other Person", entries: [.entry(.result, "Potassium", id: "e_2", at: 1_293_900_000)])
    static var patient: String { Patient.id(sourceName: "files", recordID: "aud") }
    static var otherPatient: String { Patient.id(sourceName: "files", recordID: "aud2") }

    static func actions(_ served: ServedApp) throws -> [String] {
        try served.store.auditEventsSync(limit: 500).reversed().map { $0.action.rawValue }
    }

    @Test("sign-in, a failed one while locked, sign-out, lock, token use once a day, export, annotation, person changes, deletions: one row each")
    func everyAction() async throws {
        try await ServedApp.with(records: [Self.record, Self.other], policy: true) { (served: ServedApp) async throws in
            let signIn = try await served.client.post("/session", json: #"{"password": "pw"}"#)
            #expect(signIn.status == 200)
            let cookie = try #require(signIn.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
            let headers = ["Cookie": cookie, "Content-Type": "application/json"]
            let client = served.client
            func status(_ method: String, _ target: String, _ body: String = "") async throws -> Int {
                let response = try await client.send(method, target, headers: headers, body: Array(body.utf8))
                return response.status
            }
            let (token, _) = try await served.store.createToken(name: "backup script")
            for _ in 0..<3 {
                #expect(try await served.client.get("/patients.json", headers: ["Authorization": "Bearer \(token)"]).status == 200)
            }
            #expect(try await status("GET", "/patients/\(Self.patient)/export.json") == 200)
            #expect(try await status("PUT", "/patients/\(Self.patient)/entries/e_1/annotation", #"{"note":"since 2010"}"#) == 200)
            #expect(try await status("DELETE", "/patients/\(Self.patient)/entries/e_1/annotation") == 204)
            #expect(try await status("PATCH", "/patients/\(Self.patient)", #"{"relationship":"me"}"#) == 200)
            #expect(try await status("POST", "/patients/\(Self.patient)/links", #"{"patient":"\#(Self.otherPatient)"}"#) == 201)
            #expect(try await status("DELETE", "/patients/\(Self.patient)/links/\(Self.otherPatient)") == 200)
            let post = try await served.client.send("POST", "/timeline.json?key=Levels&patient=\(Self.patient)", headers: headers, body: Array(#"{"pain":"3"}"#.utf8))
            let postID = try #require(post.object["id"] as? String)
            #expect(try await status("DELETE", "/timeline/entries/\(postID)") == 204)
            #expect(try await status("DELETE", "/patients/\(Self.otherPatient)") == 204)
            // Reading is not audited (only what the trail lists): timeline, search.
            #expect(try await status("GET", "/timeline.json?page=all&patient=\(Self.patient)") == 200)
            #expect(try await status("DELETE", "/session") == 204)
            // Signed in again, then locked; a wrong password while locked; then a sign-in.
            let again = try await served.client.post("/session", json: #"{"password": "pw"}"#)
            let cookie2 = try #require(again.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
            #expect(try await served.client.send("POST", "/lock", headers: ["Cookie": cookie2]).status == 200)
            #expect(try await served.client.post("/session", json: #"{"password": "nope"}"#).status == 401)
            #expect(try await served.client.post("/session", json: #"{"password": "pw"}"#).status == 200)
            // The token's use is noted off the request's path.
            try await Task.sleep(for: .milliseconds(200))
            let store = try #require(try? served.app.gate.store())
            let events = try store.auditEventsSync(limit: 500).reversed()
            #expect(events.map(\.action.rawValue) == [
                "sign_in", "token_used", "export", "annotation", "annotation", "patient_change", "patient_change", "patient_change",
                "deletion", "deletion", "sign_out", "sign_in", "lock", "sign_in_failed", "sign_in",
            ])
            #expect(events.first { $0.action == .tokenUsed }?.actor == "token backup script")
            #expect(events.first { $0.action == .export }.map { $0.patientID == Self.patient && $0.actor.hasPrefix("session ") } == true)
            // The sign-out is the same session's (its route is public: the cookie says which).
            #expect(events.first { $0.action == .signOut }?.actor == events.first { $0.action == .export }?.actor)
            #expect(events.allSatisfy { !$0.actor.contains(cookie.split(separator: "=").last.map(String.init) ?? "?") && !$0.actor.contains(token) })
            let text = events.map { "\($0.actor) \($0.patientID ?? "") \($0.detail ?? "")" }.joined(separator: "\n")
            for secret in ["Secret", "Patient", "Confidential", "since 2010", "Other Person", "aud"] where secret != "aud" || text.contains(" aud ") {
                #expect(!text.contains(secret), "\(secret) in the audit trail")
            }

            // /audit.json lists them, newest first, in pages; no method changes them.
            let cookie3 = try #require(try await served.client.post("/session", json: #"{"password": "pw"}"#).header("Set-Cookie")?.split(separator: ";").first.map(String.init))
            let page = try await served.client.get("/audit.json?limit=5", headers: ["Cookie": cookie3]).object
            let listed = page["events"] as? [[String: Any]] ?? []
            #expect(listed.count == 5 && listed.first?["action"] as? String == "sign_in")
            let next = try #require(page["next_cursor"] as? String)
            let second = try await served.client.get("/audit.json?limit=5&cursor=\(next)", headers: ["Cookie": cookie3]).object
            // Newest first: the five on the first page end with the sign-in before the lock.
            #expect((second["events"] as? [[String: Any]])?.first?["action"] as? String == "sign_out")
            #expect(try await served.client.get("/audit.json?action=export", headers: ["Cookie": cookie3]).object["events"].map { ($0 as? [Any])?.count } == 1)
            #expect(try await served.client.get("/audit.json?action=burglary", headers: ["Cookie": cookie3]).status == 400)
            for method in ["PUT", "POST", "PATCH", "DELETE"] {
                #expect(try await served.client.send(method, "/audit.json", headers: ["Cookie": cookie3]).status == 405)
            }
            #expect(try store.auditEventsSync(limit: 500).count == events.count + 1)
        }
    }

    @Test("a reading added, edited and deleted, and a choice of modules: audited by id, never by value or note")
    func readingsAndModules() async throws {
        try await ServedApp.with(records: [Self.record], policy: true) { (served: ServedApp) async throws in
            let signIn = try await served.client.post("/session", json: #"{"password": "pw"}"#)
            let cookie = try #require(signIn.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
            let headers = ["Cookie": cookie, "Content-Type": "application/json"]
            let added = try await served.client.send("POST", "/patients/\(Self.patient)/readings", headers: headers,
                                                     body: Array(#"{"kind":"weight","value":93.5,"note":"Confidential scale"}"#.utf8))
            #expect(added.status == 201)
            let id = try #require((added.object["reading"] as? [String: Any])?["id"] as? String)
            #expect(try await served.client.send("PUT", "/readings/\(id)", headers: headers, body: Array(#"{"kind":"weight","value":92}"#.utf8)).status == 200)
            #expect(try await served.client.send("DELETE", "/readings/\(id)", headers: headers).status == 204)
            #expect(try await served.client.send("PUT", "/patients/\(Self.patient)/modules", headers: headers,
                                                 body: Array(#"{"modules":["feelings"]}"#.utf8)).status == 200)
            #expect(try await served.client.get("/patients/\(Self.patient)/summary.json", headers: headers).status == 200)
            let events = try served.store.auditEventsSync(limit: 500).reversed().filter { $0.action != .signIn }
            #expect(events.map(\.action.rawValue) == ["reading", "reading", "reading", "patient_change"])
            #expect(events.map(\.detail) == ["added \(id)", "edited \(id)", "deleted \(id)", "summary modules chosen"])
            #expect(events.first?.patientID == Self.patient)
            // The value as written (ids and session names are random hex, which may hold "93" by chance; never a dot).
            let text = events.map { "\($0.actor) \($0.detail ?? "")" }.joined()
            #expect(!text.contains("93.5") && !text.contains("Confidential"), "\(text)")
        }
    }

    @Test("polls the web app makes on its own do not keep the store from locking when idle; a person's request does")
    func backgroundPolls() async throws {
        try await ServedApp.with(records: [Self.record], policy: true, idleLockSeconds: 10) { (served: ServedApp) async throws in
            let idleLock = Task { await served.app.runIdleLock() } // checks once a second
            defer { idleLock.cancel() }
            func signIn() async throws -> String {
                try #require(try await served.client.post("/session", json: #"{"password": "pw"}"#).header("Set-Cookie")?
                    .split(separator: ";").first.map(String.init))
            }
            func imports(_ cookie: String, background: Bool) async throws -> Int {
                let headers = background ? ["Cookie": cookie, "X-Hreaderd-Background": "1"] : ["Cookie": cookie]
                return try await served.client.get("/imports.json", headers: headers).status
            }
            let start = served.clock.now()
            let cookie = try await signIn()
            // A person's request 5 s in: 12 s after the sign-in (7 after that request) the store is still open.
            served.setNow(start + 5)
            #expect(try await imports(cookie, background: false) == 200)
            served.setNow(start + 12)
            try await Task.sleep(for: .milliseconds(1_500))
            #expect(try await imports(cookie, background: true) == 200)

            // Only polled in the background since: 10 s after the person's request the store locks itself, the
            // session ends, and the trail says the daemon locked it for being idle.
            served.setNow(start + 15)
            var status = 200
            for _ in 0..<50 where status == 200 {
                try await Task.sleep(for: .milliseconds(100))
                status = try await imports(cookie, background: true)
            }
            #expect(status == 423)
            let again = try await signIn()
            let locks = try await served.client.get("/audit.json?action=lock", headers: ["Cookie": again]).object["events"] as? [[String: Any]]
            #expect(locks?.count == 1)
            #expect(locks?.first?["actor"] as? String == "daemon")
            #expect(locks?.first?["detail"] as? String == "idle for 10 s")
        }
    }
}
