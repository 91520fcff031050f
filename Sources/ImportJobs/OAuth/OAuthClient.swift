import FoundationEssentials
import HealthRecord
import Store

/// An OAuth2 token endpoint (RHEx's `/oauth2/token`, a SMART server's `token_endpoint`): a form post with
/// the client id (and, for a confidential client, its secret) as fields, for the password,
/// authorization-code (with its PKCE verifier, RFC 7636) and refresh-token grants.
public struct OAuthClient: Sendable {
    public enum Grant: Sendable {
        case password(username: String, password: String)
        case authorizationCode(code: String, redirectURI: String, codeVerifier: String?)
        case refreshToken(String)

        var name: String {
            switch self {
            case .password: return "password"
            case .authorizationCode: return "authorization_code"
            case .refreshToken: return "refresh_token"
            }
        }
    }

    let tokenURL: URL
    let clientID: String
    /// Empty: a public client, which sends only its id.
    let clientSecret: String
    let fetcher: HTTPFetcher
    let limit: Int

    public init(tokenURL: URL, clientID: String, clientSecret: String, fetcher: HTTPFetcher, limit: Int) {
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.fetcher = fetcher
        self.limit = limit
    }

    /// Asks for a token. A refusal that only the user can fix (`invalid_grant`, a bad client, a `401`, a
    /// redirect to a sign-in page) is `needsSignIn`; `5xx` and network trouble are transient.
    public func request(_ grant: Grant) async throws(SyncError) -> TokenResponse {
        var fields: [(String, String)] = [("grant_type", grant.name)]
        switch grant {
        case let .password(username, password):
            fields += [("username", username), ("password", password)]
        case let .authorizationCode(code, redirectURI, verifier):
            fields += [("code", code), ("redirect_uri", redirectURI)]
            if let verifier { fields.append(("code_verifier", verifier)) }
        case let .refreshToken(token):
            fields += [("refresh_token", token)]
        }
        fields.append(("client_id", clientID))
        if !clientSecret.isEmpty { fields.append(("client_secret", clientSecret)) }
        var request = HTTPRequest(url: tokenURL)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.httpBody = Array(Self.formEncode(fields).utf8)
        let answer = try await fetcher.fetch(request, limit: limit)
        let url = HTTPFetcher.display(tokenURL)
        switch answer.status {
        case 200:
            return try TokenResponse.parse(answer.body)
        case 300..<400:
            throw .needsSignIn("the token endpoint redirected to \(Self.location(answer)) (\(answer.status))")
        case 400, 401, 403:
            let code = TokenResponse.errorCode(answer.body)
            switch code {
            case "invalid_grant":
                throw .needsSignIn("the server refused the \(grant.name) grant (invalid_grant)")
            case "invalid_client", "unauthorized_client":
                throw .needsSignIn("the server refused the client id or secret (\(code ?? ""))")
            default:
                if answer.status == 400 {
                    throw .badTokenResponse("\(url) answered 400\(code.map { " (\($0))" } ?? "")")
                }
                throw .needsSignIn("the token endpoint answered \(answer.status)\(code.map { " (\($0))" } ?? "")")
            }
        default:
            throw .status(url: url, code: answer.status)
        }
    }

    /// `application/x-www-form-urlencoded`: every byte but the unreserved ones percent-encoded.
    public static func formEncode(_ fields: [(String, String)]) -> String {
        fields.map { "\(percentEncode($0.0))=\(percentEncode($0.1))" }.joined(separator: "&")
    }

    public static func percentEncode(_ text: String) -> String { PercentEncoding.encode(text) }

    /// Where a redirect points, without its query, for messages.
    public static func location(_ answer: HTTPAnswer) -> String {
        guard let location = answer.header("location"), !location.isEmpty else { return "(no Location)" }
        let shown = location.split(separator: "?", maxSplits: 1).first.map(String.init) ?? location
        return String(shown.prefix(200))
    }
}
