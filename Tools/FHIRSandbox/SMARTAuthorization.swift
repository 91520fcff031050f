import Foundation
import HTTPKit

/// SMART App Launch, standalone: `/authorize` (checks, the sign-in page, codes) and `/token`
/// (authorization code with PKCE, refresh tokens with rotation, public or confidential client).
extension FHIRSandbox {
    /// An authorize request that passed its checks.
    struct AuthorizeRequest {
        var clientID: String
        var redirectURI: String
        var scope: String
        var state: String
        var challenge: String
        var aud: String

        /// The fields the sign-in page carries back.
        var hiddenFields: [(String, String)] {
            [("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("scope", scope),
             ("state", state), ("aud", aud), ("code_challenge", challenge), ("code_challenge_method", "S256")]
        }
    }

    enum AuthorizeCheck {
        case passed(AuthorizeRequest)
        /// Not safe to redirect (unknown client, bad redirect URI): a page.
        case page(Response)
        /// Redirect to the client with an error.
        case redirect(String)
    }

    /// Checks an authorize request. An unknown client or a bad redirect URI answers `400` with a page (a
    /// redirect to an unchecked address would make the server an open redirector, RFC 6749 §4.1.2.1);
    /// anything else wrong goes back to the client as `error=…&state=…`.
    func checkAuthorize(_ items: Query) -> AuthorizeCheck {
        guard let clientID = items["client_id"], clientID == configuration.clientID else {
            return .page(SignInPage.problem("Unknown client", "This server knows no client \(items["client_id"] ?? "(none)")."))
        }
        guard let redirectURI = items["redirect_uri"], Self.isRedirectURI(redirectURI),
              configuration.redirectURIs.isEmpty || configuration.redirectURIs.contains(redirectURI) else {
            return .page(SignInPage.problem("Bad redirect URI", "The redirect_uri is missing, not an absolute http(s) URL, or not registered for this client."))
        }
        let state = items["state"] ?? ""
        func refuse(_ error: String, _ description: String) -> AuthorizeCheck {
            .redirect(Self.redirect(redirectURI, [("error", error), ("error_description", description)] + (state.isEmpty ? [] : [("state", state)])))
        }
        guard items["response_type"] == "code" else { return refuse("invalid_request", "response_type must be code.") }
        guard !state.isEmpty else { return refuse("invalid_request", "state is required.") }
        guard items["aud"] == baseURL else { return refuse("invalid_request", "aud must be this server's FHIR base URL, \(baseURL).") }
        guard let challenge = items["code_challenge"], !challenge.isEmpty else { return refuse("invalid_request", "code_challenge is required (PKCE).") }
        guard items["code_challenge_method"] == "S256" else { return refuse("invalid_request", "code_challenge_method must be S256.") }
        guard let scope = items["scope"], !scope.trimmingCharacters(in: .whitespaces).isEmpty else {
            return refuse("invalid_scope", "scope is required.")
        }
        return .passed(AuthorizeRequest(clientID: clientID, redirectURI: redirectURI, scope: scope, state: state, challenge: challenge,
                                        aud: baseURL))
    }

    /// `GET /authorize`: a redirect with a code at once (`autoApprove`), else the sign-in page.
    func authorize(_ request: Request, form items: Query) async -> Response {
        let fault = begin(.authorize, kind: .open)
        state.withLock {
            $0.stats.lastAuthorizeQuery = AuthorizeQuery(
                responseType: items["response_type"], clientID: items["client_id"], redirectURI: items["redirect_uri"],
                scope: items["scope"], state: items["state"], aud: items["aud"], codeChallenge: items["code_challenge"],
                codeChallengeMethod: items["code_challenge_method"])
        }
        if let answer = await answer(for: fault, style: .fhir) { return answer }
        switch checkAuthorize(items) {
        case .page(let page): return page
        case .redirect(let location): return .redirect(to: location)
        case .passed(let authorization):
            guard configuration.autoApprove else { return signInPage(authorization, error: nil) }
            guard let patientID = configuration.autoApprovePatient ?? patientIDs.first, patientIDs.contains(patientID) else {
                return .redirect(to: Self.redirect(authorization.redirectURI, [
                    ("error", "access_denied"), ("error_description", "This server has no such patient."), ("state", authorization.state),
                ]))
            }
            return .redirect(to: approve(authorization, patientID: patientID))
        }
    }

    /// `POST /authorize`: the sign-in page's form.
    func authorizePost(_ request: Request) async -> Response {
        let fault = begin(.authorize, kind: .open)
        if let answer = await answer(for: fault, style: .fhir) { return answer }
        guard let text = request.bodyText, let form = try? Query(parsing: text) else {
            return SignInPage.problem("Bad form", "The form could not be read.")
        }
        switch checkAuthorize(form) {
        case .page(let page): return page
        case .redirect(let location): return .redirect(to: location, status: .seeOther)
        case .passed(let authorization):
            if form["decision"] == "deny" {
                return .redirect(to: Self.redirect(authorization.redirectURI, [
                    ("error", "access_denied"), ("error_description", "The user did not allow access."), ("state", authorization.state),
                ]), status: .seeOther)
            }
            guard let user = form["username"], let password = configuration.users[user], password == form["password"] else {
                return signInPage(authorization, error: "The user name or the password is wrong.")
            }
            guard let patientID = form["patient"], patientIDs.contains(patientID) else {
                return signInPage(authorization, error: "Choose a patient.")
            }
            return .redirect(to: approve(authorization, patientID: patientID), status: .seeOther)
        }
    }

    /// Issues a code for the request and returns the redirect to the client carrying it.
    func approve(_ authorization: AuthorizeRequest, patientID: String) -> String {
        let code = Self.randomToken(prefix: "code")
        state.withLock { state in
            state.codes[code] = CodeGrant(clientID: authorization.clientID, redirectURI: authorization.redirectURI,
                                          challenge: authorization.challenge, scope: authorization.scope, patientID: patientID,
                                          expiresAt: Self.now(state) + configuration.codeLifetime * 1000)
        }
        return Self.redirect(authorization.redirectURI, [("code", code), ("state", authorization.state)])
    }

    func signInPage(_ authorization: AuthorizeRequest, error: String?) -> Response {
        let patients = state.withLock { state in
            state.patients.compactMap { id in state.resources["Patient/" + id].map { (id, SignInPage.label(of: $0.json, id: id)) } }
        }
        let user = configuration.users.keys.sorted().first ?? ""
        return SignInPage.page(fields: authorization.hiddenFields, patients: patients, suggestedUser: user, error: error)
    }

    static func isRedirectURI(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host?.isEmpty == false, url.fragment == nil else { return false }
        return true
    }

    /// `uri` with `parameters` added to its query.
    static func redirect(_ uri: String, _ parameters: [(String, String)]) -> String {
        let query = parameters.map { formEncode($0.0) + "=" + formEncode($0.1) }.joined(separator: "&")
        return uri + (uri.contains("?") ? "&" : "?") + query
    }

    static func formEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(Character(UnicodeScalar(byte)))
            default:
                let hex = Array("0123456789ABCDEF")
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
            }
        }
        return out
    }

    // MARK: - The token endpoint

    /// `POST /token`.
    func token(_ request: Request) async -> Response {
        let form = request.bodyText.flatMap { try? Query(parsing: $0) }
        let grant = form?["grant_type"] ?? ""
        let fault = begin(.token, kind: grant == "refresh_token" ? .refreshGrant : .open)
        if let answer = await answer(for: fault, style: .oauth) { return answer }
        let contentType = request.headers.first(name: "Content-Type")?.lowercased() ?? ""
        guard let form, contentType.hasPrefix("application/x-www-form-urlencoded") else {
            return Self.oauthError(.badRequest, "invalid_request", "Send the token request as an application/x-www-form-urlencoded form.")
        }
        let response = tokenAnswer(request, form: form, grant: grant, refuseRefresh: fault == .refuseRefresh)
        return fault == .truncate ? Self.truncated(response) : response
    }

    private func tokenAnswer(_ request: Request, form: Query, grant: String, refuseRefresh: Bool) -> Response {
        let (clientID, method) = authenticateClient(request, form: form)
        state.withLock { $0.stats.lastClientAuthentication = method }
        guard let clientID else {
            state.withLock { $0.stats.clientAuthenticationFailures += 1 }
            var response = Self.oauthError(.unauthorized, "invalid_client", "Client authentication failed.")
            if configuration.clientSecret != nil {
                response.headers.replaceOrAdd(name: "WWW-Authenticate", value: #"Basic realm="fhir-sandbox""#)
            }
            return response
        }
        func refuse(_ error: String, _ description: String) -> Response {
            state.withLock { $0.stats.grantsRefused[grant, default: 0] += 1 }
            return Self.oauthError(.badRequest, error, description)
        }
        switch grant {
        case "authorization_code":
            guard let code = form["code"] else { return refuse("invalid_request", "code is required.") }
            let verifier = form["code_verifier"] ?? ""
            let verifierIsWellFormed = (43...128).contains(verifier.utf8.count)
                && verifier.utf8.allSatisfy { byte in
                    switch byte {
                    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                         UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
                    default: false
                    }
                }
            let challenge = verifierIsWellFormed ? PKCE.challenge(verifier) : nil
            let outcome = state.withLock { state -> Result<CodeGrant, TokenRefusal> in
                // A code is used once, whatever comes of it.
                guard let issued = state.codes.removeValue(forKey: code), issued.expiresAt > Self.now(state) else {
                    return .failure(TokenRefusal("The code is unknown, used or expired."))
                }
                guard issued.clientID == clientID else { return .failure(TokenRefusal("The code was issued to another client.")) }
                guard form["redirect_uri"] == issued.redirectURI else {
                    return .failure(TokenRefusal("redirect_uri is not the one of the authorize request."))
                }
                guard challenge == issued.challenge else {
                    state.stats.pkceFailures += 1
                    return .failure(TokenRefusal("The code_verifier does not match the code_challenge."))
                }
                state.stats.pkceVerified = true
                return .success(issued)
            }
            switch outcome {
            case .failure(let refusal): return refuse("invalid_grant", refusal.description)
            case .success(let issued):
                return issue(grant: grant, TokenGrant(clientID: clientID, patientID: issued.patientID, scope: issued.scope, expiresAt: 0),
                             refreshToken: nil)
            }
        case "refresh_token":
            if refuseRefresh { return refuse("invalid_grant", "The refresh token was refused.") }
            guard let token = form["refresh_token"] else { return refuse("invalid_request", "refresh_token is required.") }
            let found = state.withLock { state -> TokenGrant? in
                guard let grant = state.refreshTokens[token], grant.clientID == clientID else { return nil }
                if configuration.rotatesRefreshTokens { state.refreshTokens[token] = nil }
                return grant
            }
            guard var refreshed = found else { return refuse("invalid_grant", "The refresh token is unknown, used or revoked.") }
            if let asked = form["scope"] {
                let granted = Set(refreshed.scope.split(separator: " "))
                guard Set(asked.split(separator: " ")).isSubset(of: granted) else {
                    return refuse("invalid_scope", "A refresh may narrow the scope, not widen it.")
                }
                refreshed.scope = asked
            }
            return issue(grant: grant, refreshed, refreshToken: configuration.rotatesRefreshTokens ? nil : token)
        default:
            return refuse("unsupported_grant_type", "grant_type must be authorization_code or refresh_token.")
        }
    }

    struct TokenRefusal: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The client a token request authenticated as, and how (`basic`, `post`, `none`); nil when the
    /// authentication failed. A confidential client must send its secret (HTTP Basic or `client_secret`);
    /// a public one names itself with `client_id`.
    func authenticateClient(_ request: Request, form: Query) -> (String?, String) {
        if let header = request.headers.first(name: "Authorization"), header.lowercased().hasPrefix("basic ") {
            guard let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
                  let decoded = String(data: data, encoding: .utf8), let colon = decoded.firstIndex(of: ":") else { return (nil, "basic") }
            // RFC 6749 §2.3.1 form-encodes both before Basic; many clients do not: either is taken.
            let raw = (String(decoded[..<colon]), String(decoded[decoded.index(after: colon)...]))
            let formDecoded = (try? Query(parsing: "v=" + raw.0)["v"]).flatMap { id in
                (try? Query(parsing: "v=" + raw.1)["v"]).map { (id, $0) }
            }
            for (id, secret) in [raw] + (formDecoded.map { [$0] } ?? []) {
                if id == configuration.clientID, (form["client_id"] ?? id) == id, configuration.clientSecret.map({ $0 == secret }) ?? true {
                    return (id, "basic")
                }
            }
            return (nil, "basic")
        }
        guard let id = form["client_id"], id == configuration.clientID else {
            return (nil, form["client_secret"] == nil ? "none" : "post")
        }
        if let secret = form["client_secret"] {
            return (configuration.clientSecret.map { $0 == secret } ?? true ? id : nil, "post")
        }
        return (configuration.clientSecret == nil ? id : nil, "none")
    }

    /// Issues an access token (and a refresh token when the scope has `offline_access` or
    /// `online_access`; `keep` is the one to hand back when refresh tokens do not rotate).
    func issue(grant: String, _ grantInfo: TokenGrant, refreshToken keep: String?) -> Response {
        let access = Self.randomToken(prefix: "at")
        let scopes = grantInfo.scope.split(separator: " ")
        let refresh = scopes.contains("offline_access") || scopes.contains("online_access") ? keep ?? Self.randomToken(prefix: "rt") : nil
        state.withLock { state in
            var issued = grantInfo
            issued.expiresAt = Self.now(state) + configuration.accessTokenLifetime * 1000
            state.accessTokens[access] = issued
            if let refresh { state.refreshTokens[refresh] = grantInfo }
            state.stats.grantsIssued[grant, default: 0] += 1
        }
        var body = #"{"access_token":"\#(access)","token_type":"Bearer","expires_in":\#(configuration.accessTokenLifetime),"#
            + #""scope":\#(JSON.quoted(grantInfo.scope)),"patient":\#(JSON.quoted(grantInfo.patientID))"#
        if let refresh { body += #","refresh_token":"\#(refresh)""# }
        body += "}"
        var response = Response.json(body)
        response.headers.add(name: "Cache-Control", value: "no-store")
        response.headers.add(name: "Pragma", value: "no-cache")
        return response
    }

    static func oauthError(_ status: HTTPResponseStatus, _ code: String, _ description: String) -> Response {
        var response = Response.json(#"{"error":"\#(code)","error_description":\#(JSON.quoted(description))}"#, status: status)
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }

    static func list(_ items: [String]) -> String {
        "[" + items.map(JSON.quoted).joined(separator: ",") + "]"
    }
}
