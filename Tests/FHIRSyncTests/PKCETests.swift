import Foundation
@testable import FHIRClient
import HealthRecord
import Store
import Testing

/// PKCE and the authorization request, against the RFC's own example.
@Suite("PKCE and the authorization URL")
struct PKCETests {
    @Test("RFC 7636 appendix B: the S256 challenge of its example verifier")
    func rfcExample() {
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test("a fresh verifier is 43 URL-safe characters, and two are never the same; so are states")
    func fresh() {
        let a = PKCE(), b = PKCE()
        #expect(a.verifier.count == 43)
        #expect(a.verifier != b.verifier)
        #expect(a.verifier.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(PKCE.state() != PKCE.state())
    }

    @Test("base64url without padding, at every length remainder")
    func base64url() {
        #expect(Base64URL.encode(Array("f".utf8)) == "Zg")
        #expect(Base64URL.encode(Array("fo".utf8)) == "Zm8")
        #expect(Base64URL.encode(Array("foo".utf8)) == "Zm9v")
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
    }

    @Test("the authorization URL carries every SMART parameter, the scope's spaces and plus signs encoded")
    func authorizationURL() throws {
        let url = SMARTSignIn.authorizationURL(try #require(URL(string: "https://auth.example.org/authorize?tenant=a")), clientID: "c+1",
                                               redirectURI: "http://127.0.0.1:8420/sources/callback", scope: "launch/patient patient/*.read",
                                               state: "s1", audience: "https://fhir.example.org/r4", challenge: "ch")
        let items = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        #expect(value("tenant") == "a")
        #expect(value("response_type") == "code")
        #expect(value("client_id") == "c+1")
        #expect(value("scope") == "launch/patient patient/*.read")
        #expect(value("aud") == "https://fhir.example.org/r4")
        #expect(value("code_challenge_method") == "S256")
        #expect(!url.absoluteString.contains("c+1"))
    }
}
