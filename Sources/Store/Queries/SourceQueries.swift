import HealthRecord
import FoundationEssentials

/// RHEx sources: what `hreaderd source add|list|remove` manages and the sync reads. Secrets (client
/// secret, user password, authorization code, tokens) are written here and read back only through
/// `sourceCredentials(id:)`; no listing carries them.
extension Store {
    /// A new RHEx source, or new settings and credentials for an existing one.
    public struct NewSource: Sendable {
        public var name: String
        public var url: String
        public var settings: SourceSettings
        public var secrets: SourceSecrets

        public init(name: String, url: String, settings: SourceSettings, secrets: SourceSecrets) {
            self.name = name
            self.url = url
            self.settings = settings
            self.secrets = secrets
        }
    }

    static let sourceColumns = """
        id, name, kind, url, settings, state, last_error, last_sync_at, created_at,
        (access_token IS NOT NULL OR refresh_token IS NOT NULL) AS has_token FROM sources
        """

    static func source(_ row: Row) -> Source {
        Source(id: row.int64("id"), name: row.string("name"), kind: Source.Kind(rawValue: row.string("kind")) ?? .rhex,
               url: row.stringOrNil("url"), settings: SourceSettings.decode(row.string("settings")),
               state: Source.State(rawValue: row.string("state")) ?? .ok, lastError: row.stringOrNil("last_error"),
               lastSyncAt: row.int64OrNil("last_sync_at"), createdAt: row.int64("created_at"), hasToken: row.int64("has_token") != 0)
    }

    /// Adds an RHEx source. With `replacing`, an existing source of that name gets the new URL, settings
    /// and credentials instead (its tokens are dropped and its state is `ok` again: this is how a user
    /// signs in again); its patients stay. Without it, an existing name is `invalidInput`.
    @discardableResult
    public func addSource(_ new: NewSource, replacing: Bool = false, now: Int64 = Store.now()) async throws(StoreError) -> Source {
        guard Source.isValidName(new.name), new.name != Source.filesSourceName else {
            throw .invalidInput("a source name is 1 to 64 letters, digits, '.', '-' or '_', and not \"files\"")
        }
        let settings = new.settings.json
        return try await write { db in
            let existing = try db.row("SELECT id, kind FROM sources WHERE name = ?", [new.name]) { ($0.int64(0), $0.string(1)) }
            if let existing {
                let (id, kind) = existing
                guard replacing, kind == Source.Kind.rhex.rawValue else {
                    throw StoreError.invalidInput("there is already a source named \(new.name)")
                }
                try db.execute("""
                    UPDATE sources SET url = ?, settings = ?, client_secret = ?, user_password = ?, authorization_code = ?,
                        access_token = NULL, access_token_expires_at = NULL, refresh_token = NULL, state = 'ok', last_error = NULL
                    WHERE id = ?
                    """, [new.url, settings, new.secrets.clientSecret, new.secrets.userPassword, new.secrets.authorizationCode, id])
            } else {
                try db.execute("""
                    INSERT INTO sources (name, kind, url, settings, client_secret, user_password, authorization_code, state, created_at)
                    VALUES (?, 'rhex', ?, ?, ?, ?, ?, 'ok', ?)
                    """, [new.name, new.url, settings, new.secrets.clientSecret, new.secrets.userPassword,
                          new.secrets.authorizationCode, now])
            }
            guard let source = try db.row("SELECT \(Store.sourceColumns) WHERE name = ?", [new.name], Store.source) else {
                throw StoreError.notFound("source \(new.name)")
            }
            return source
        }
    }

    /// Every server the daemon syncs from (RHEx and FHIR), by name.
    public func remoteSources() async throws(StoreError) -> [Source] {
        try await read { db in try db.rows("SELECT \(Store.sourceColumns) WHERE kind IN ('rhex', 'fhir') ORDER BY name", [], Store.source) }
    }

    public func source(named name: String) async throws(StoreError) -> Source? {
        try await read { db in try db.row("SELECT \(Store.sourceColumns) WHERE name = ?", [name], Store.source) }
    }

    public func source(id: Int64) async throws(StoreError) -> Source? {
        try await read { db in try db.row("SELECT \(Store.sourceColumns) WHERE id = ?", [id], Store.source) }
    }

    /// How many patients a source's records made.
    public func patientCount(sourceID: Int64) async throws(StoreError) -> Int {
        try await read { db in try db.scalar("SELECT count(*) FROM patients WHERE source_id = ?", [sourceID], as: Int.self) ?? 0 }
    }

    /// Removes an RHEx source with its jobs and, when `deletingPatients`, its patients (their entries and
    /// posts go with them). Without it, a source that still has patients is refused (`invalidInput`).
    /// Returns the number of patients removed, or nil when there is no such RHEx source.
    public func removeSource(named name: String, deletingPatients: Bool) async throws(StoreError) -> Int? {
        try await write { db in
            guard let id = try db.scalar("SELECT id FROM sources WHERE name = ? AND kind IN ('rhex', 'fhir')", [name], as: Int64.self) else {
                return nil
            }
            let patients = try db.scalar("SELECT count(*) FROM patients WHERE source_id = ?", [id], as: Int.self) ?? 0
            if patients > 0 && !deletingPatients {
                throw StoreError.invalidInput("the source \(name) holds \(patients) patient\(patients == 1 ? "" : "s")")
            }
            // Foreign keys cascade: patients (entries, posts) and import jobs go with the source.
            try db.execute("DELETE FROM sources WHERE id = ?", [id])
            return patients
        }
    }

    /// The secrets and tokens of a source, for the sync only.
    public func sourceCredentials(id: Int64) async throws(StoreError) -> (secrets: SourceSecrets, tokens: SourceTokens)? {
        try await read { db in
            try db.row("""
                SELECT client_secret, user_password, authorization_code, access_token, access_token_expires_at, refresh_token, pkce_verifier
                FROM sources WHERE id = ?
                """, [id]) { row in
                (SourceSecrets(clientSecret: row.stringOrNil(0) ?? "", userPassword: row.stringOrNil(1), authorizationCode: row.stringOrNil(2),
                               codeVerifier: row.stringOrNil(6)),
                 SourceTokens(accessToken: row.stringOrNil(3), accessTokenExpiresAt: row.int64OrNil(4), refreshToken: row.stringOrNil(5)))
            }
        }
    }

    /// Keeps the tokens the token endpoint gave. `consumedAuthorizationCode` clears the (single-use) code.
    public func saveTokens(sourceID: Int64, _ tokens: SourceTokens, consumedAuthorizationCode: Bool = false) async throws(StoreError) {
        try await write { db in
            try db.execute("""
                UPDATE sources SET access_token = ?, access_token_expires_at = ?, refresh_token = ?,
                    authorization_code = CASE WHEN ?4 THEN NULL ELSE authorization_code END,
                    pkce_verifier = CASE WHEN ?4 THEN NULL ELSE pkce_verifier END
                WHERE id = ?5
                """, [tokens.accessToken, tokens.accessTokenExpiresAt, tokens.refreshToken, consumedAuthorizationCode, sourceID])
        }
    }

    /// The ETag of every patient record of a source, by record id: sent back as `If-None-Match`.
    public func recordETags(sourceID: Int64) async throws(StoreError) -> [String: String] {
        try await read { db in
            var tags: [String: String] = [:]
            try db.statement("SELECT record_id, etag FROM patients WHERE source_id = ? AND etag IS NOT NULL").forEach([sourceID]) { row in
                tags[row.string(0)] = row.string(1)
            }
            return tags
        }
    }
}
