import FHIRSandbox
import Foundation
import ImportJobs
import HealthRecord
@testable import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// `POST /sources` and `GET /sources/callback` with a real FHIR sandbox: the sign-in begun from the web
/// app, the browser's way back, and what a stranger's or a stale redirect gets.
@Suite("FHIR sources from the web app", .serialized)
struct SourceRouteTests {
    static let bundle = Array(#"""
        {"resourceType":"Bundle","type":"collection","entry":[
          {"fullUrl":"urn:uuid:p1","resource":{"resourceType":"Patient","id":"p1","name":[{"given":["Fay"],"family":"Hir"}],"birthDate":"1990-02-03","gender":"female"}},
          {"fullUrl":"urn:uuid:c1","resource":{"resourceType":"Condition","id":"c1","subject":{"reference":"urn:uuid:p1"},"code":{"text":"Asthma"},"onsetDateTime":"2010-05-01"}}
        ]}
        """#.utf8)

    static func withSandbox(_ body: (FHIRSandbox) async throws -> Void) async throws {
        var configuration = FHIRSandbox.Configuration()
        configuration.autoApprove = true
        let sandbox = try FHIRSandbox(configuration: configuration, bundles: [bundle])
        _ = try await sandbox.start()
        do { try await body(sandbox) } catch {
            await sandbox.shutdown()
            throw error
        }
        await sandbox.shutdown()
    }

    static func begin(_ served: ServedApp, _ body: String) async throws -> HTTPTestClient.Response {
        try await served.client.send("POST", "/sources", headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }

    /// The authorization URL followed as a browser would: the sandbox redirects with code and state.
    static func approve(_ authorize: String) async throws -> (location: String, code: String, state: String) {
        let fetcher = HTTPFetcher(timeoutSeconds: 5, maxConnectionsPerHost: 1)
        defer { fetcher.close() }
        let answer = try await fetcher.fetch(HTTPRequest(url: try #require(URL(string: authorize))), limit: 1 << 16)
        #expect(answer.status == 302)
        let location = try #require(answer.header("location"))
        let items = try #require(URLComponents(string: location)?.queryItems)
        return (location, try #require(items.first { $0.name == "code" }?.value), try #require(items.first { $0.name == "state" }?.value))
    }

    @Test("begun from the web app, completed by the browser's way back: the source exists, its first sync is queued, 303 to the import panel")
    func signInThroughTheCallback() async throws {
        try await Self.withSandbox { sandbox in
            try await ServedApp.with { served in
                let begun = try await Self.begin(served, #"{"name":"clinic","fhir":"\#(sandbox.baseURL)","client_id":"hreaderd-fhir","sync_interval":30}"#)
                #expect(begun.status == 201, "\(begun.text)")
                let authorize = try #require(begun.object["authorize_url"] as? String)
                #expect(authorize.hasPrefix(sandbox.authorizeURL))
                #expect(!authorize.contains("hreaderd-fhir-secret"))
                let (location, _, _) = try await Self.approve(authorize)
                // The redirect URI is the daemon's own callback, on the host the request came to.
                let callback = try #require(URLComponents(string: location))
                #expect(callback.path == "/sources/callback")
                let target = callback.path + "?" + (callback.percentEncodedQuery ?? "")
                let landed = try await served.client.get(target)
                #expect(landed.status == 303)
                #expect(landed.header("Location") == "/timeline/#imports")
                let source = try #require(try await served.store.source(named: "clinic"))
                #expect(source.kind == .fhir && source.url == sandbox.baseURL)
                #expect(source.settings.syncIntervalSeconds == 1800)
                #expect(try await served.store.importJobs(limit: 10).contains { $0.sourceID == source.id && $0.state == .queued })
                // The same redirect again (a reload of the page): the sign-in is spent.
                #expect(try await served.client.get(target).status == 400)

                // /imports.json names the source and never a secret.
                let imports = try await served.client.get("/imports.json")
                let listed = (imports.object["sources"] as? [[String: Any]])?.first { $0["name"] as? String == "clinic" }
                #expect(listed?["kind"] as? String == "fhir")
                let credentials = try #require(try await served.store.sourceCredentials(id: source.id))
                for secret in [credentials.secrets.authorizationCode, credentials.secrets.codeVerifier].compactMap({ $0 }) {
                    #expect(!imports.text.contains(secret))
                }
            }
        }
    }

    @Test("a stranger's or a stale redirect changes nothing: unknown state, expired sign-in, the server's refusal, no state")
    func badCallbacks() async throws {
        try await Self.withSandbox { sandbox in
            try await ServedApp.with { served in
                let begun = try await Self.begin(served, #"{"name":"clinic","fhir":"\#(sandbox.baseURL)","client_id":"hreaderd-fhir"}"#)
                let (_, code, state) = try await Self.approve(try #require(begun.object["authorize_url"] as? String))
                for target in ["/sources/callback?code=\(code)&state=forged", "/sources/callback?code=\(code)", "/sources/callback?state=\(state)"] {
                    let answer = try await served.client.get(target)
                    #expect(answer.status == 400, "\(target)")
                    #expect((answer.object["error"] as? [String: Any])?["code"] as? String == "unknown_sign_in")
                }
                // Eleven minutes later the sign-in has expired.
                served.setNow(served.app.now() + PendingSignIn.lifetimeSeconds + 60)
                #expect(try await served.client.get("/sources/callback?code=\(code)&state=\(state)").status == 400)
                #expect(try await served.store.source(named: "clinic") == nil)

                let again = try await Self.begin(served, #"{"name":"clinic","fhir":"\#(sandbox.baseURL)","client_id":"hreaderd-fhir"}"#)
                let (_, _, state2) = try await Self.approve(try #require(again.object["authorize_url"] as? String))
                let refused = try await served.client.get("/sources/callback?error=access_denied&state=\(state2)")
                #expect((refused.object["error"] as? [String: Any])?["code"] as? String == "sign_in_refused")
                #expect(try await served.store.source(named: "clinic") == nil)
            }
        }
    }

    @Test("bad requests to begin: a bad name, URL or client id, unknown members, a server that is not SMART, an RHEx name")
    func badBegins() async throws {
        try await ServedApp.with { served in
            for body in [#"{"name":"a b","fhir":"http://127.0.0.1:1/fhir","client_id":"c"}"#,
                         #"{"name":"clinic","fhir":"ftp://x/fhir","client_id":"c"}"#,
                         #"{"name":"clinic","fhir":"http://127.0.0.1:1/fhir?x=1","client_id":"c"}"#,
                         #"{"name":"clinic","fhir":"http://127.0.0.1:1/fhir","client_id":""}"#,
                         #"{"name":"clinic","fhir":"http://127.0.0.1:1/fhir","client_id":"c","client_secret":"s"}"#,
                         #"{"name":"clinic","fhir":"http://127.0.0.1:1/fhir","client_id":"c","sync_interval":-5}"#] {
                let answer = try await Self.begin(served, body)
                #expect(answer.status == 400, "\(body)")
                #expect((answer.object["error"] as? [String: Any])?["code"] as? String == "bad_source")
            }
            // Nothing listens on port 1: discovery fails, and says so.
            let unreachable = try await Self.begin(served, #"{"name":"clinic","fhir":"http://127.0.0.1:1/fhir","client_id":"c"}"#)
            #expect(unreachable.status == 502)
            #expect((unreachable.object["error"] as? [String: Any])?["code"] as? String == "discovery_failed")
            try await served.store.addSource(Store.NewSource(name: "pds", url: "http://127.0.0.1:1/", settings: SourceSettings(clientID: "c"),
                                                             secrets: SourceSecrets(clientSecret: "s")))
            try await Self.withSandbox { sandbox in
                let taken = try await Self.begin(served, #"{"name":"pds","fhir":"\#(sandbox.baseURL)","client_id":"hreaderd-fhir"}"#)
                #expect(taken.status == 409)
                // A FHIR source's name for another server is refused too; for the same server it is signing in again.
                try served.store.writeSync { db in
                    try db.execute("INSERT INTO sources (name, kind, url, settings, created_at) VALUES ('clinic', 'fhir', 'https://other.example/fhir', '{}', 0)")
                }
                #expect(try await Self.begin(served, #"{"name":"clinic","fhir":"\#(sandbox.baseURL)","client_id":"hreaderd-fhir"}"#).status == 409)
                try served.store.writeSync { db in try db.execute("UPDATE sources SET url = ? WHERE name = 'clinic'", [sandbox.baseURL]) }
                #expect(try await Self.begin(served, #"{"name":"clinic","fhir":"\#(sandbox.baseURL)","client_id":"hreaderd-fhir"}"#).status == 201)
            }
        }
    }

    @Test("the callback needs no session (the redirect is cross-site) but an open store; every other source route needs one")
    func accessPolicy() async throws {
        try await ServedApp.with(policy: true, locked: true) { (served: ServedApp) async throws in
            #expect(try await served.client.get("/sources/callback?code=x&state=y").status == 423)
        }
        try await ServedApp.with(policy: true) { (served: ServedApp) async throws in
            #expect(try await served.client.get("/sources/callback?code=x&state=y").status == 400)
            #expect(try await served.client.post("/sources", json: #"{"name":"x"}"#).status == 401)
        }
    }
}
