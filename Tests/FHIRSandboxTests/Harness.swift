import Foundation
@testable import FHIRSandbox
import TestSupport
import Testing

/// A sandbox on a free port with a client for it; always shut down at the end.
struct Harness {
    let sandbox: FHIRSandbox
    let http: HTTPTestClient

    static let redirectURI = "http://127.0.0.1:9/callback"
    /// A code verifier (RFC 7636: 43 to 128 unreserved characters) and its S256 challenge.
    static let verifier = "sandbox-test-verifier-0123456789-abcdefghijklmnopqrstuvwxyz._~"
    static var challenge: String { PKCE.challenge(verifier) }
    static let scope = "launch/patient openid fhirUser offline_access patient/*.read"

    /// Starts a sandbox (auto-approving, unless `configure` says otherwise), runs `body`, shuts it down.
    static func with(
        _ configure: (inout FHIRSandbox.Configuration) -> Void = { _ in },
        bundles: [[UInt8]] = [TestData.bundle],
        _ body: (Harness) async throws -> Void
    ) async throws {
        var configuration = FHIRSandbox.Configuration()
        configuration.autoApprove = true
        configure(&configuration)
        let sandbox = try FHIRSandbox(configuration: configuration, bundles: bundles)
        let port = try await sandbox.start()
        let harness = Harness(sandbox: sandbox, http: HTTPTestClient(port: port))
        do {
            try await body(harness)
        } catch {
            await sandbox.shutdown()
            throw error
        }
        await sandbox.shutdown()
    }

    // MARK: SMART

    /// The authorize request's parameters; `changes` replaces some (nil removes one).
    func authorizeParameters(_ changes: [String: String?] = [:]) -> [(String, String)] {
        var parameters: [(String, String)] = [
            ("response_type", "code"), ("client_id", sandbox.configuration.clientID), ("redirect_uri", Self.redirectURI),
            ("scope", Self.scope), ("state", "state-123"), ("aud", sandbox.baseURL), ("code_challenge", Self.challenge),
            ("code_challenge_method", "S256"),
        ]
        for (name, value) in changes {
            parameters.removeAll { $0.0 == name }
            if let value { parameters.append((name, value)) }
        }
        return parameters
    }

    static func encode(_ parameters: [(String, String)]) -> String {
        parameters.map { FHIRSandbox.formEncode($0.0) + "=" + FHIRSandbox.formEncode($0.1) }.joined(separator: "&")
    }

    func authorize(_ changes: [String: String?] = [:]) async throws -> HTTPTestClient.Response {
        try await http.get("/authorize?" + Self.encode(authorizeParameters(changes)))
    }

    /// The query parameters of a redirect's `Location`.
    static func redirectParameters(_ response: HTTPTestClient.Response) -> [String: String] {
        guard let location = response.header("Location"), let components = URLComponents(string: location) else { return [:] }
        var found: [String: String] = [:]
        for item in components.queryItems ?? [] { found[item.name] = item.value ?? "" }
        return found
    }

    /// An authorization code, auto-approved.
    func code(scope: String = Harness.scope) async throws -> String {
        let response = try await authorize(["scope": scope])
        #expect(response.status == 302)
        return try #require(Self.redirectParameters(response)["code"])
    }

    func tokenRequest(_ form: [(String, String)], headers: [String: String] = [:]) async throws -> HTTPTestClient.Response {
        try await http.post("/token", form: Self.encode(form), headers: headers)
    }

    func exchange(code: String, verifier: String = Harness.verifier, extra: [(String, String)] = [],
                  headers: [String: String] = [:]) async throws -> HTTPTestClient.Response {
        try await tokenRequest([
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Self.redirectURI),
            ("client_id", sandbox.configuration.clientID), ("code_verifier", verifier),
        ] + extra, headers: headers)
    }

    func refresh(_ token: String, headers: [String: String] = [:]) async throws -> HTTPTestClient.Response {
        try await tokenRequest([("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", sandbox.configuration.clientID)],
                               headers: headers)
    }

    struct Tokens {
        var access: String
        var refresh: String?
        var patient: String
    }

    /// Authorize, then exchange the code: a patient's tokens.
    func signIn(scope: String = Harness.scope) async throws -> Tokens {
        let response = try await exchange(code: try await code(scope: scope))
        #expect(response.status == 200, "\(response.text)")
        let object = response.object
        return Tokens(access: try #require(object["access_token"] as? String), refresh: object["refresh_token"] as? String,
                      patient: try #require(object["patient"] as? String))
    }

    /// Through the sign-in page: the form posted with the sandbox's user and `patient` chosen.
    func signInOnPage(patient: String, scope: String = Harness.scope) async throws -> Tokens {
        let form = authorizeParameters(["scope": scope]) + [("username", "family"), ("password", "sandbox-password"), ("patient", patient)]
        let answer = try await http.post("/authorize", form: Self.encode(form))
        #expect(answer.status == 303)
        let response = try await exchange(code: try #require(Self.redirectParameters(answer)["code"]))
        let object = response.object
        #expect(object["patient"] as? String == patient)
        return Tokens(access: try #require(object["access_token"] as? String), refresh: object["refresh_token"] as? String, patient: patient)
    }

    // MARK: FHIR

    /// A GET of a path (`/fhir/…`) or of an absolute URL of the sandbox (a `next` link).
    func get(_ target: String, token: String?, headers: [String: String] = [:]) async throws -> HTTPTestClient.Response {
        var path = target
        if path.hasPrefix(sandbox.origin) { path = String(path.dropFirst(sandbox.origin.count)) }
        var all = headers
        all["Accept"] = all["Accept"] ?? "application/fhir+json"
        if let token { all["Authorization"] = "Bearer " + token }
        return try await http.get(path, headers: all)
    }

    struct Pages {
        var entries: [[String: Any]] = []
        var pages = 0
        var total: Int?
        var fullUrls: [String] { entries.compactMap { $0["fullUrl"] as? String } }
    }

    /// Every page of a search, following `next` links.
    func allPages(_ target: String, token: String) async throws -> Pages {
        var pages = Pages()
        var next: String? = target
        while let url = next, pages.pages < 1000 {
            let response = try await get(url, token: token)
            try #require(response.status == 200, "\(url): \(response.status) \(response.text)")
            let bundle = response.object
            #expect(bundle["resourceType"] as? String == "Bundle" && bundle["type"] as? String == "searchset")
            pages.pages += 1
            pages.total = bundle["total"] as? Int
            pages.entries += (bundle["entry"] as? [[String: Any]]) ?? []
            next = ((bundle["link"] as? [[String: Any]]) ?? []).first { $0["relation"] as? String == "next" }?["url"] as? String
        }
        return pages
    }
}

extension HTTPTestClient.Response {
    /// The first issue's diagnostics of an OperationOutcome body.
    var diagnostics: String? {
        guard object["resourceType"] as? String == "OperationOutcome" else { return nil }
        return ((object["issue"] as? [[String: Any]])?.first)?["diagnostics"] as? String
    }
}
