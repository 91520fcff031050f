import Foundation
@testable import FHIRSandbox
import TestSupport
import Testing

@Suite("SMART authorization")
struct AuthorizationTests {
    @Test("auto-approved: a code at once, the state echoed, the request's parameters kept")
    func autoApprove() async throws {
        try await Harness.with { harness in
            let response = try await harness.authorize()
            #expect(response.status == 302)
            let parameters = Harness.redirectParameters(response)
            #expect(parameters["state"] == "state-123")
            #expect(parameters["code"]?.isEmpty == false)
            #expect(response.header("Location")?.hasPrefix(Harness.redirectURI + "?code=") == true)
            let query = try #require(harness.sandbox.stats.lastAuthorizeQuery)
            #expect(query.clientID == "hreaderd-fhir" && query.scope == Harness.scope && query.aud == harness.sandbox.baseURL)
            #expect(query.codeChallengeMethod == "S256" && query.state == "state-123" && query.redirectURI == Harness.redirectURI)
        }
    }

    @Test("an unknown client or a bad redirect URI: 400 with a page, no redirect", arguments: [
        ["client_id": "someone-else"], ["client_id": nil], ["redirect_uri": nil], ["redirect_uri": "/relative"],
        ["redirect_uri": "javascript:alert(1)"],
    ] as [[String: String?]])
    func unsafe(changes: [String: String?]) async throws {
        try await Harness.with { harness in
            let response = try await harness.authorize(changes)
            #expect(response.status == 400)
            #expect(response.header("Location") == nil)
            #expect(response.header("Content-Type")?.hasPrefix("text/html") == true)
        }
    }

    @Test("a registered redirect URI is the only one taken")
    func registeredRedirect() async throws {
        try await Harness.with({ $0.redirectURIs = [Harness.redirectURI] }) { harness async throws in
            #expect(try await harness.authorize().status == 302)
            #expect(try await harness.authorize(["redirect_uri": "http://127.0.0.1:9/other"]).status == 400)
        }
    }

    @Test("anything else wrong goes back to the client as error=…", arguments: [
        (["response_type": "token"], "invalid_request"), (["state": nil], "invalid_request"),
        (["aud": "http://elsewhere/fhir"], "invalid_request"), (["aud": nil], "invalid_request"),
        (["code_challenge": nil], "invalid_request"), (["code_challenge_method": "plain"], "invalid_request"),
        (["code_challenge_method": nil], "invalid_request"), (["scope": nil], "invalid_scope"),
    ] as [([String: String?], String)])
    func refused(changes: [String: String?], error: String) async throws {
        try await Harness.with { harness in
            let response = try await harness.authorize(changes)
            #expect(response.status == 302)
            let parameters = Harness.redirectParameters(response)
            #expect(parameters["error"] == error)
            #expect(parameters["code"] == nil)
            #expect(parameters["state"] == (changes.keys.contains("state") ? nil : "state-123"))
        }
    }

    @Test("the sign-in page: a form with the request, the patients; a wrong password shows it again; the right one redirects")
    func signInPage() async throws {
        try await Harness.with({ $0.autoApprove = false }) { harness in
            let page = try await harness.authorize()
            #expect(page.status == 200)
            let html = page.text
            #expect(html.contains(#"<form method="post" action="/authorize">"#))
            #expect(html.contains(#"<select name="patient">"#))
            #expect(html.contains(#"<option value="alice">Alice Liddell (born 2015-03-04)</option>"#))
            #expect(html.contains(#"<input type="hidden" name="code_challenge" value="\#(Harness.challenge)">"#))
            #expect(html.contains("Sign in and allow"))
            #expect(!html.contains("<script"))
            #expect(page.header("Content-Security-Policy")?.contains("form-action") == false)

            var form = harness.authorizeParameters() + [("username", "family"), ("password", "wrong"), ("patient", "bob")]
            let wrong = try await harness.http.post("/authorize", form: Harness.encode(form))
            #expect(wrong.status == 200 && wrong.text.contains("The user name or the password is wrong."))

            form = harness.authorizeParameters() + [("username", "family"), ("password", "sandbox-password"), ("patient", "bob"),
                                                    ("decision", "allow")]
            let allowed = try await harness.http.post("/authorize", form: Harness.encode(form))
            #expect(allowed.status == 303)
            let parameters = Harness.redirectParameters(allowed)
            #expect(parameters["state"] == "state-123")
            let token = try await harness.exchange(code: try #require(parameters["code"]))
            #expect(token.object["patient"] as? String == "bob")

            form = harness.authorizeParameters() + [("decision", "deny")]
            let denied = try await harness.http.post("/authorize", form: Harness.encode(form))
            #expect(Harness.redirectParameters(denied)["error"] == "access_denied")
        }
    }

    @Test("code → token: Bearer, the scope echoed, the patient, a refresh token for offline_access only")
    func exchange() async throws {
        try await Harness.with { harness in
            let response = try await harness.exchange(code: try await harness.code())
            #expect(response.status == 200)
            #expect(response.header("Cache-Control") == "no-store")
            let object = response.object
            #expect(object["token_type"] as? String == "Bearer")
            #expect(object["expires_in"] as? Int == 3600)
            #expect(object["scope"] as? String == Harness.scope)
            #expect(object["patient"] as? String == TestData.alice)
            #expect((object["refresh_token"] as? String)?.isEmpty == false)
            #expect(harness.sandbox.stats.pkceVerified)
            #expect(harness.sandbox.stats.grantsIssued["authorization_code"] == 1)

            let online = try await harness.exchange(code: try await harness.code(scope: "launch/patient patient/*.read"))
            #expect(online.status == 200 && online.object["refresh_token"] == nil)
        }
    }

    @Test("PKCE: a wrong verifier is refused, and the code is spent")
    func pkce() async throws {
        try await Harness.with { harness in
            let code = try await harness.code()
            let wrong = try await harness.exchange(code: code, verifier: String(repeating: "w", count: 50))
            #expect(wrong.status == 400 && wrong.object["error"] as? String == "invalid_grant")
            #expect(harness.sandbox.stats.pkceFailures == 1 && !harness.sandbox.stats.pkceVerified)
            let again = try await harness.exchange(code: code)
            #expect(again.status == 400 && again.object["error"] as? String == "invalid_grant")
            let missing = try await harness.tokenRequest([
                ("grant_type", "authorization_code"), ("code", try await harness.code()), ("redirect_uri", Harness.redirectURI),
                ("client_id", "hreaderd-fhir"),
            ])
            #expect(missing.status == 400 && missing.object["error"] as? String == "invalid_grant")
            #expect(harness.sandbox.stats.grantsRefused["authorization_code"] == 3)
        }
    }

    @Test("a code is used once, for its redirect URI, within 60 seconds")
    func codeRules() async throws {
        try await Harness.with { harness in
            let code = try await harness.code()
            #expect(try await harness.exchange(code: code).status == 200)
            #expect(try await harness.exchange(code: code).object["error"] as? String == "invalid_grant")

            let other = try await harness.tokenRequest([
                ("grant_type", "authorization_code"), ("code", try await harness.code()), ("redirect_uri", "http://127.0.0.1:9/other"),
                ("client_id", "hreaderd-fhir"), ("code_verifier", Harness.verifier),
            ])
            #expect(other.object["error"] as? String == "invalid_grant")

            harness.sandbox.setNow(harness.sandbox.now)
            let late = try await harness.code()
            harness.sandbox.advanceClock(by: 61)
            #expect(try await harness.exchange(code: late).object["error"] as? String == "invalid_grant")
        }
    }

    @Test("refresh: a new access token and a new refresh token; the old refresh token is refused")
    func rotation() async throws {
        try await Harness.with { harness in
            let tokens = try await harness.signIn()
            let first = try #require(tokens.refresh)
            let refreshed = try await harness.refresh(first)
            #expect(refreshed.status == 200)
            let next = try #require(refreshed.object["refresh_token"] as? String)
            let access = try #require(refreshed.object["access_token"] as? String)
            #expect(next != first && access != tokens.access)
            #expect(refreshed.object["patient"] as? String == TestData.alice)
            #expect(refreshed.object["scope"] as? String == Harness.scope)
            #expect(try await harness.get("/fhir/Patient/alice", token: access).status == 200)
            let old = try await harness.refresh(first)
            #expect(old.status == 400 && old.object["error"] as? String == "invalid_grant")
            #expect(try await harness.refresh(next).status == 200)
            #expect(harness.sandbox.stats.grantsIssued["refresh_token"] == 2)
            #expect(harness.sandbox.stats.grantsRefused["refresh_token"] == 1)
        }
    }

    @Test("without rotation, the refresh token stays good")
    func noRotation() async throws {
        try await Harness.with({ $0.rotatesRefreshTokens = false }) { harness in
            let refresh = try #require(try await harness.signIn().refresh)
            #expect(try await harness.refresh(refresh).object["refresh_token"] as? String == refresh)
            #expect(try await harness.refresh(refresh).status == 200)
        }
    }

    @Test("a confidential client must send its secret: none or a wrong one is 401 invalid_client; Basic or the form field will do")
    func confidential() async throws {
        try await Harness.with({ $0.clientSecret = "s3cret+/" }) { harness in
            let none = try await harness.exchange(code: try await harness.code())
            #expect(none.status == 401 && none.object["error"] as? String == "invalid_client")
            #expect(none.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
            let wrong = try await harness.exchange(code: try await harness.code(), extra: [("client_secret", "guess")])
            #expect(wrong.status == 401 && wrong.object["error"] as? String == "invalid_client")
            let badBasic = "Basic " + Data("hreaderd-fhir:guess".utf8).base64EncodedString()
            #expect(try await harness.exchange(code: try await harness.code(), headers: ["Authorization": badBasic]).status == 401)
            #expect(harness.sandbox.stats.clientAuthenticationFailures == 3)

            let post = try await harness.exchange(code: try await harness.code(), extra: [("client_secret", "s3cret+/")])
            #expect(post.status == 200)
            #expect(harness.sandbox.stats.lastClientAuthentication == "post")
            // RFC 6749 §2.3.1: form-encoded, then Basic; the raw secret is taken too.
            for credentials in ["hreaderd-fhir:s3cret%2B%2F", "hreaderd-fhir:s3cret+/"] {
                let basic = "Basic " + Data(credentials.utf8).base64EncodedString()
                let response = try await harness.exchange(code: try await harness.code(), headers: ["Authorization": basic])
                #expect(response.status == 200, "\(credentials)")
                #expect(harness.sandbox.stats.lastClientAuthentication == "basic")
                let refresh = try #require(response.object["refresh_token"] as? String)
                #expect(try await harness.refresh(refresh).status == 401)
                #expect(try await harness.refresh(refresh, headers: ["Authorization": basic]).status == 200)
            }
        }
    }

    @Test("a public client: an unknown client id is 401 invalid_client; an unknown grant type is 400")
    func publicClient() async throws {
        try await Harness.with { harness in
            let stranger = try await harness.tokenRequest([
                ("grant_type", "authorization_code"), ("code", try await harness.code()), ("redirect_uri", Harness.redirectURI),
                ("client_id", "stranger"), ("code_verifier", Harness.verifier),
            ])
            #expect(stranger.status == 401 && stranger.object["error"] as? String == "invalid_client")
            let password = try await harness.tokenRequest([("grant_type", "password"), ("client_id", "hreaderd-fhir")])
            #expect(password.status == 400 && password.object["error"] as? String == "unsupported_grant_type")
            let json = try await harness.http.post("/token", json: #"{"grant_type":"refresh_token"}"#)
            #expect(json.status == 400 && json.object["error"] as? String == "invalid_request")
        }
    }
}
