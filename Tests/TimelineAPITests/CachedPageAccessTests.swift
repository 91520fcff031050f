import Foundation
import HTTPKit
import HealthRecord
import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// A page from the payload cache is answered on the event loop with no task (`Router.on(…immediate:)`): the
/// access policy, the token cache, the idle clock and the audit trail hold there as on every other request.
@Suite("Cached pages: access on the immediate path")
struct CachedPageAccessTests {
    static let record = PatientRecord.record("imm", name: "Cached Patient", entries: [
        .entry(.condition, "Cached Diagnosis", id: "e_1", at: 1_293_900_000),
    ])
    static let page = "/timeline.json?page=year"

    @Test("a cached page needs a valid token each time; unknown, malformed and revoked tokens are refused")
    func tokens() async throws {
        try await ServedApp.with(records: [Self.record], policy: true) { served in
            let (token, info) = try await served.store.createToken(name: "test")
            let bearer = ["Authorization": "Bearer \(token)"]
            let first = try await served.client.get(Self.page, headers: bearer)
            #expect(first.status == 200)
            #expect(first.text.contains("Cached Diagnosis"))
            // Now the page and the token are both cached: the same answer, at once.
            for _ in 0..<3 {
                let again = try await served.client.get(Self.page, headers: bearer)
                #expect(again.status == 200)
                #expect(again.text == first.text)
            }
            for refused in ["Bearer hrd_notatoken", "Basic \(token)", "Bearer", "", "Bearer \(token)x"] {
                let response = try await served.client.get(Self.page, headers: ["Authorization": refused])
                #expect(response.status == 401, "Authorization: \(refused)")
                #expect(!response.text.contains("Cached"))
            }
            #expect(try await served.client.get(Self.page).status == 401)
            // The same token sent with other spacing is the same token.
            #expect(try await served.client.get(Self.page, headers: ["Authorization": "bearer  \(token) "]).status == 200)

            #expect(try await served.store.revokeToken(id: info.id))
            let revoked = try await served.client.get(Self.page, headers: bearer)
            #expect(revoked.status == 401)
            #expect(revoked.errorCode == "unauthenticated")
            #expect(!revoked.text.contains("Cached"))
        }
    }

    @Test("a token revoked by another connection to the store is refused at once, though cached")
    func revokedElsewhere() async throws {
        try await ServedApp.with(records: [Self.record], policy: true) { served in
            let (token, info) = try await served.store.createToken(name: "test")
            let bearer = ["Authorization": "Bearer \(token)"]
            #expect(try await served.client.get(Self.page, headers: bearer).status == 200)
            #expect(try await served.client.get(Self.page, headers: bearer).status == 200)
            // A write that does not go through this store's revocation count: the commit count alone tells.
            try await served.store.write { db in try db.execute("DELETE FROM api_tokens WHERE id = ?", [info.id]) }
            #expect(try await served.client.get(Self.page, headers: bearer).status == 401)
        }
    }

    @Test("Host, lock and session checks hold for a cached page; a session's use moves the idle clock")
    func policy() async throws {
        try await ServedApp.with(records: [Self.record], policy: true) { served in
            let signedIn = try await served.client.post("/session", json: #"{"password": "pw"}"#)
            let cookie = try #require(signedIn.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
            let (token, _) = try await served.store.createToken(name: "test")
            let withCookie = ["Cookie": cookie]
            #expect(try await served.client.get(Self.page, headers: withCookie).status == 200)
            #expect(try await served.client.get(Self.page, headers: ["Authorization": "Bearer \(token)"]).status == 200)

            let badHost = try await served.client.get(Self.page, headers: ["Host": "evil.example", "Cookie": cookie])
            #expect(badHost.status == 403)
            #expect(badHost.errorCode == "bad_host")

            served.setNow(served.clock.now() + 5)
            #expect(try await served.client.get(Self.page, headers: withCookie).status == 200)
            #expect(served.app.sessions.lastActivity == served.clock.now())
            // A background poll does not keep the store from locking.
            served.setNow(served.clock.now() + 5)
            #expect(try await served.client.get(Self.page, headers: ["Cookie": cookie, AccessPolicy.backgroundHeader: "1"]).status == 200)
            #expect(served.app.sessions.lastActivity == served.clock.now() - 5)

            #expect(try await served.client.send("POST", "/lock", headers: withCookie).status == 200)
            for credentials in [withCookie, ["Authorization": "Bearer \(token)"]] {
                let locked = try await served.client.get(Self.page, headers: credentials)
                #expect(locked.status == 423)
                #expect(locked.errorCode == "locked")
                #expect(!locked.text.contains("Cached"))
            }
            #expect(served.app.sessions.count == 0)
        }
    }

    @Test("requests that may be audited never take the immediate path; a page read is never audited")
    func audited() {
        let audited: [(HTTPMethod, [String])] = [
            (.POST, ["lock"]), (.POST, ["session"]), (.DELETE, ["session"]), (.POST, ["imports"]), (.POST, ["imports", "files"]),
            (.GET, ["patients", "p", "export.json"]), (.GET, ["patients", "p", "ips.json"]), (.GET, ["patients", "p", "ccda.xml"]),
            (.DELETE, ["patients", "p"]), (.PATCH, ["patients", "p"]), (.PUT, ["patients", "p", "entries", "e", "annotation"]),
            (.GET, ["sources", "callback"]), (.PUT, ["readings", "r"]),
        ]
        for (method, segments) in audited {
            #expect(AuditMiddleware.mayAudit(method, segments), "\(method) \(segments)")
        }
        let unaudited: [(HTTPMethod, [String])] = [
            (.GET, ["timeline.json"]), (.GET, ["patients.json"]), (.GET, ["patients", "p", "summary.json"]), (.POST, ["backups"]),
        ]
        for (method, segments) in unaudited {
            #expect(!AuditMiddleware.mayAudit(method, segments), "\(method) \(segments)")
        }
    }
}
