import HealthRecord

/// SMART sign-ins between their start and the redirect back (`pending_sign_ins`), and the FHIR source a
/// completed one becomes.
extension Store {
    /// Keeps a sign-in begun for `pending.name`, replacing an earlier one for that name; expired ones go.
    public func beginSignIn(_ pending: PendingSignIn) async throws(StoreError) {
        guard Source.isValidName(pending.name), pending.name != Source.filesSourceName else {
            throw .invalidInput("a source name is 1 to 64 letters, digits, '.', '-' or '_', and not \"files\"")
        }
        try await write { db in
            if let (kind, url) = try db.row("SELECT kind, url FROM sources WHERE name = ?", [pending.name], { ($0.string(0), $0.stringOrNil(1)) }) {
                guard kind == Source.Kind.fhir.rawValue else {
                    throw StoreError.invalidInput("there is already a source named \(pending.name), and it is not a FHIR server")
                }
                // Signing in again is to the same server; another server under a used name would replace it.
                guard url == pending.fhirURL else {
                    throw StoreError.invalidInput("there is already a source named \(pending.name), for \(url ?? "another server"): choose another name")
                }
            }
            try db.execute("DELETE FROM pending_sign_ins WHERE name = ? OR expires_at < ?", [pending.name, pending.createdAt])
            try db.execute("""
                INSERT INTO pending_sign_ins (state, name, fhir_url, client_id, client_secret, redirect_uri, pkce_verifier, authorize_url,
                    token_url, scope, sync_interval_seconds, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [pending.state, pending.name, pending.fhirURL, pending.clientID, pending.clientSecret, pending.redirectURI,
                      pending.codeVerifier, pending.authorizeURL, pending.tokenURL, pending.scope, pending.syncIntervalSeconds,
                      pending.createdAt, pending.expiresAt])
        }
    }

    /// How a sign-in is found again: by the `state` the server sent back, or by the source's name (a code
    /// typed in by hand).
    public enum SignInKey: Sendable {
        case state(String)
        case name(String)
    }

    /// Completes a pending sign-in with the authorization code: the FHIR source is made (or, for a source
    /// of that name, given the new code, settings and a clean state; its patients stay) holding the code
    /// and the PKCE verifier for its first sync to exchange, and the pending sign-in is gone. nil (and
    /// nothing changed) when there is no such sign-in or it has expired.
    public func completeSignIn(_ key: SignInKey, code: String, now: Int64) async throws(StoreError) -> Source? {
        try await write { db in
            let condition = switch key { case .state: "state = ?"; case .name: "name = ?" }
            let value = switch key { case .state(let state): state; case .name(let name): name }
            guard let pending = try db.row("SELECT * FROM pending_sign_ins WHERE \(condition)", [value], Self.pendingSignIn) else { return nil }
            try db.execute("DELETE FROM pending_sign_ins WHERE state = ?", [pending.state])
            guard pending.expiresAt >= now else { return nil }
            let settings = SourceSettings(clientID: pending.clientID, redirectURI: pending.redirectURI,
                                          syncIntervalSeconds: pending.syncIntervalSeconds, importAll: true, tokenURL: pending.tokenURL,
                                          scope: pending.scope).json
            if let id = try db.scalar("SELECT id FROM sources WHERE name = ? AND kind = 'fhir'", [pending.name], as: Int64.self) {
                try db.execute("""
                    UPDATE sources SET url = ?, settings = ?, client_secret = ?, authorization_code = ?, pkce_verifier = ?,
                        access_token = NULL, access_token_expires_at = NULL, refresh_token = NULL, state = 'ok', last_error = NULL
                    WHERE id = ?
                    """, [pending.fhirURL, settings, pending.clientSecret, code, pending.codeVerifier, id])
            } else {
                try db.execute("""
                    INSERT INTO sources (name, kind, url, settings, client_secret, authorization_code, pkce_verifier, state, created_at)
                    VALUES (?, 'fhir', ?, ?, ?, ?, ?, 'ok', ?)
                    """, [pending.name, pending.fhirURL, settings, pending.clientSecret, code, pending.codeVerifier, now])
            }
            return try db.row("SELECT \(Store.sourceColumns) WHERE name = ?", [pending.name], Store.source)
        }
    }

    /// The pending sign-in of a name, if one is still open (for messages; its secrets stay inside).
    public func pendingSignIn(name: String, now: Int64) async throws(StoreError) -> PendingSignIn? {
        try await read { db in
            try db.row("SELECT * FROM pending_sign_ins WHERE name = ? AND expires_at >= ?", [name, now], Self.pendingSignIn)
        }
    }

    static func pendingSignIn(_ row: Row) -> PendingSignIn {
        PendingSignIn(state: row.string("state"), name: row.string("name"), fhirURL: row.string("fhir_url"), clientID: row.string("client_id"),
                      clientSecret: row.stringOrNil("client_secret"), redirectURI: row.string("redirect_uri"),
                      codeVerifier: row.string("pkce_verifier"), authorizeURL: row.string("authorize_url"), tokenURL: row.string("token_url"),
                      scope: row.string("scope"), syncIntervalSeconds: row.int64OrNil("sync_interval_seconds"),
                      createdAt: row.int64("created_at"), expiresAt: row.int64("expires_at"))
    }

    /// Keeps what a FHIR sync learnt: the patient the token named, and the server time from which the next
    /// sync asks only for changes (nil leaves each as it is).
    public func saveFHIRProgress(sourceID: Int64, patient: String?, since: String?) async throws(StoreError) {
        try await write { db in
            guard let text = try db.scalar("SELECT settings FROM sources WHERE id = ?", [sourceID], as: String.self) else { return }
            var settings = SourceSettings.decode(text)
            if let patient { settings.fhirPatient = patient }
            if let since { settings.fhirSince = since }
            try db.execute("UPDATE sources SET settings = ? WHERE id = ?", [settings.json, sourceID])
        }
    }
}
