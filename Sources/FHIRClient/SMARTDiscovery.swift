import FoundationEssentials
import ImportJobs
import Records

/// What a SMART server says about signing in: its authorization and token endpoints, from
/// `.well-known/smart-configuration` (SMART App Launch 2.x), else from the CapabilityStatement's
/// `oauth-uris` extension (1.0); whether it takes PKCE's S256 and which scope syntax it speaks.
public struct SMARTConfiguration: Sendable, Equatable {
    public var authorizeURL: URL
    public var tokenURL: URL
    /// SMART v2 scopes (`patient/*.rs`) when the server says it has them, else v1 (`patient/*.read`).
    public var scopesV2: Bool

    /// The scopes hreaderd asks for: the patient in context, who signed in, a refresh token, read access.
    public var scope: String {
        "launch/patient openid fhirUser offline_access " + (scopesV2 ? "patient/*.rs" : "patient/*.read")
    }

    static let oauthURIs = "http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris"

    /// Reads the server's configuration; `FHIRSignInError.discovery` when neither document gives the endpoints.
    public static func discover(_ server: FHIRServerURL, fetcher: HTTPFetcher, limit: Int) async throws(FHIRSignInError) -> SMARTConfiguration {
        if let answer = try await get(server.url([".well-known", "smart-configuration"]), fetcher: fetcher, limit: limit),
           let found = try fromWellKnown(answer, server: server) {
            return found
        }
        guard let answer = try await get(server.url(["metadata"]), fetcher: fetcher, limit: limit) else {
            throw .discovery("\(server.text) has neither .well-known/smart-configuration nor a CapabilityStatement at /metadata")
        }
        return try fromCapabilityStatement(answer, server: server)
    }

    private static func get(_ url: URL, fetcher: HTTPFetcher, limit: Int) async throws(FHIRSignInError) -> [UInt8]? {
        var request = HTTPRequest(url: url)
        request.setValue("application/json, application/fhir+json;q=0.9", forHTTPHeaderField: "Accept")
        let answer: HTTPAnswer
        do { answer = try await fetcher.fetch(request, limit: limit) } catch { throw .network(error) }
        return answer.status == 200 ? answer.body : nil
    }

    static func fromWellKnown(_ body: [UInt8], server: FHIRServerURL) throws(FHIRSignInError) -> SMARTConfiguration? {
        guard let document = JSONReading.parse(body, limit: body.count + 1),
              let authorize = document.path("authorization_endpoint")?.text, let token = document.path("token_endpoint")?.text else {
            return nil
        }
        let methods = document.path("code_challenge_methods_supported")?.array.compactMap(\.text)
        if let methods, !methods.contains("S256") {
            throw .unsupported("\(server.text) does not take PKCE with S256 (code_challenge_methods_supported: \(methods.joined(separator: ", ")))")
        }
        let scopes = document.path("scopes_supported")?.array.compactMap(\.text) ?? []
        let capabilities = document.path("capabilities")?.array.compactMap(\.text) ?? []
        let v2 = capabilities.contains("permission-v2") || scopes.contains { $0.hasSuffix(".rs") || $0.hasSuffix(".cruds") }
        return try make(authorize: authorize, token: token, v2: v2, server: server)
    }

    static func fromCapabilityStatement(_ body: [UInt8], server: FHIRServerURL) throws(FHIRSignInError) -> SMARTConfiguration {
        guard let document = JSONReading.parse(body, limit: body.count + 1), document.path("resourceType")?.text == "CapabilityStatement" else {
            throw .discovery("\(server.text)/metadata is not a CapabilityStatement")
        }
        for rest in document.path("rest")?.array ?? [] {
            for extensionValue in rest.path("security", "extension")?.array ?? [] where extensionValue.path("url")?.text == oauthURIs {
                var authorize: String?
                var token: String?
                for inner in extensionValue.path("extension")?.array ?? [] {
                    switch inner.path("url")?.text {
                    case "authorize": authorize = inner.path("valueUri")?.text
                    case "token": token = inner.path("valueUri")?.text
                    default: break
                    }
                }
                if let authorize, let token { return try make(authorize: authorize, token: token, v2: false, server: server) }
            }
        }
        throw .discovery("\(server.text) names no OAuth endpoints (no smart-configuration, no oauth-uris in its CapabilityStatement)")
    }

    private static func make(authorize: String, token: String, v2: Bool, server: FHIRServerURL) throws(FHIRSignInError) -> SMARTConfiguration {
        guard let authorizeURL = endpoint(authorize), let tokenURL = endpoint(token) else {
            throw .discovery("\(server.text) gave endpoints that are not http or https URLs")
        }
        return SMARTConfiguration(authorizeURL: authorizeURL, tokenURL: tokenURL, scopesV2: v2)
    }

    private static func endpoint(_ text: String) -> URL? {
        guard text.utf8.count <= 2048, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "https" || scheme == "http", url.host != nil else { return nil }
        return url
    }
}
