import HealthRecord
import Store

/// The access token of one source during a sync, shared by its concurrent requests.
///
/// Renewals happen one at a time: whoever needs a token while one is being fetched waits for that one,
/// and a `401` for a token that was already replaced just takes the new one. A token is renewed before
/// use when fewer than `refreshMarginSeconds` remain (or half its lifetime, for a server that gives
/// very short ones). Renewal tries the refresh token, then the authorization code (once: codes are
/// single use), then the password; a refusal of the last one available means the user has to sign in.
/// Every token obtained is saved in the store at once (a rotated refresh token must not be lost).
public actor TokenKeeper {
    private let sourceID: Int64
    private let store: Store
    private let oauth: OAuthClient
    private let settings: SourceSettings
    private var secrets: SourceSecrets
    private var tokens: SourceTokens
    private let refreshMarginSeconds: Int64
    private let now: @Sendable () -> Int64
    /// Seconds the current token was granted for, when this keeper obtained it.
    private var lifetime: Int64?
    private var renewal: Task<Result<String, SyncError>, Never>?
    /// Grants requested by this keeper (for tests and the log).
    public private(set) var grantsRequested = 0
    /// The patient the last grant named (SMART's `patient`), when one did.
    public private(set) var grantedPatient: String?

    public init(sourceID: Int64, store: Store, oauth: OAuthClient, settings: SourceSettings, secrets: SourceSecrets, tokens: SourceTokens,
         refreshMarginSeconds: Int64, now: @escaping @Sendable () -> Int64) {
        self.sourceID = sourceID
        self.store = store
        self.oauth = oauth
        self.settings = settings
        self.secrets = secrets
        self.tokens = tokens
        self.refreshMarginSeconds = refreshMarginSeconds
        self.now = now
    }

    /// A token to send now.
    public func token() async throws(SyncError) -> String {
        if renewal == nil, let access = tokens.accessToken, isFresh { return access }
        return try await renew()
    }

    /// The server refused `token` (`401`): a replacement, renewed unless that already happened.
    public func rejected(_ token: String) async throws(SyncError) -> String {
        if renewal == nil, let access = tokens.accessToken, access != token { return access }
        if renewal == nil {
            tokens.accessToken = nil
            tokens.accessTokenExpiresAt = nil
        }
        return try await renew()
    }

    private var isFresh: Bool {
        guard let expiresAt = tokens.accessTokenExpiresAt else { return true }
        let margin = lifetime.map { min(refreshMarginSeconds, $0 / 2) } ?? refreshMarginSeconds
        return expiresAt - now() >= margin
    }

    private func renew() async throws(SyncError) -> String {
        if let renewal { return try await renewal.value.get() }
        let task = Task { await self.obtain() }
        renewal = task
        let result = await task.value
        renewal = nil
        return try result.get()
    }

    private func obtain() async -> Result<String, SyncError> {
        do throws(SyncError) {
            let (response, usedCode) = try await grant()
            let expiresAt = response.expiresIn.map { now() + $0 }
            lifetime = response.expiresIn
            if let patient = response.patient { grantedPatient = patient }
            tokens = SourceTokens(accessToken: response.accessToken, accessTokenExpiresAt: expiresAt,
                                  refreshToken: response.refreshToken ?? tokens.refreshToken)
            do { try await store.saveTokens(sourceID: sourceID, tokens, consumedAuthorizationCode: usedCode) } catch {
                throw SyncError.from(error)
            }
            return .success(response.accessToken)
        } catch {
            return .failure(error)
        }
    }

    private func grant() async throws(SyncError) -> (TokenResponse, usedCode: Bool) {
        var refusal: SyncError?
        if let refresh = tokens.refreshToken {
            do {
                grantsRequested += 1
                return (try await oauth.request(.refreshToken(refresh)), false)
            } catch .needsSignIn(let reason) {
                // The refresh token is dead; another credential may still work.
                tokens.refreshToken = nil
                refusal = .needsSignIn(reason)
            }
        }
        if let code = secrets.authorizationCode, let redirectURI = settings.redirectURI {
            // Single use, whatever the answer.
            secrets.authorizationCode = nil
            do {
                grantsRequested += 1
                return (try await oauth.request(.authorizationCode(code: code, redirectURI: redirectURI, codeVerifier: secrets.codeVerifier)), true)
            } catch .needsSignIn(let reason) {
                refusal = .needsSignIn(reason)
            }
        }
        if let username = settings.username, let password = secrets.userPassword {
            grantsRequested += 1
            return (try await oauth.request(.password(username: username, password: password)), false)
        }
        throw refusal ?? .needsSignIn("there is no refresh token, authorization code or password to sign in with")
    }
}
