import HealthRecord
import FoundationEssentials

/// API tokens for `curl` and scripts. The secret is 256 random bits; the store keeps only its SHA-256,
/// so a copy of the database does not hand out access.
extension Store {
    /// The prefix of every token, so that one found in a file or a log is recognisable.
    public static let tokenPrefix = "hrd_"

    /// Creates a token; returns it (shown once) with its listing.
    public func createToken(name: String, now: Int64 = Store.now()) async throws(StoreError) -> (token: String, info: APIToken) {
        let trimmed = name.trimmedWhitespace
        guard !trimmed.isEmpty, trimmed.utf8.count <= 100 else { throw .invalidInput("a token name is 1 to 100 bytes") }
        var secret: [UInt8]
        do { secret = try secureRandomBytes(32) } catch { throw .keyVault(error) }
        let token = Self.tokenPrefix + Self.base64URL(secret)
        wipe(&secret)
        let info = APIToken(id: StableID.random("k"), name: trimmed, createdAt: now, lastUsedAt: nil)
        let hash = Self.tokenHash(token)
        try await write { db in
            try db.execute("INSERT INTO api_tokens (id, name, token_hash, created_at) VALUES (?, ?, ?, ?)",
                           [info.id, info.name, hash, now])
        }
        return (token, info)
    }

    public func tokens() async throws(StoreError) -> [APIToken] {
        try await read { db in
            try db.rows("SELECT id, name, created_at, last_used_at FROM api_tokens ORDER BY created_at, id", []) { row in
                APIToken(id: row.string("id"), name: row.string("name"), createdAt: row.int64("created_at"),
                         lastUsedAt: row.int64OrNil("last_used_at"))
            }
        }
    }

    /// Revokes a token; false when there is none with that id.
    public func revokeToken(id: String) async throws(StoreError) -> Bool {
        let revoked = try await write { db in
            try db.execute("DELETE FROM api_tokens WHERE id = ?", [id])
            return db.changes == 1
        }
        tokenRevocations.add(1, ordering: .releasing)
        return revoked
    }

    /// Changes when this process revokes a token (see `TokenCache`).
    public var tokenRevocationCount: Int { tokenRevocations.load(ordering: .acquiring) }

    /// The id of the token, or nil when it is not a valid (unrevoked) token.
    public func verifyToken(_ token: String) async throws(StoreError) -> String? {
        guard token.hasPrefix(Self.tokenPrefix), token.utf8.count < 200 else { return nil }
        let hash = Self.tokenHash(token)
        return try await read { db in try db.scalar("SELECT id FROM api_tokens WHERE token_hash = ?", [hash], as: String.self) }
    }

    /// Records that a token was used (the caller throttles this: it is a write).
    /// Notes a token's use; its first use of a (UTC) day goes into the audit trail.
    public func touchToken(id: String, at time: Int64) async throws(StoreError) {
        try await write { db in
            let last = try db.scalar("SELECT last_used_at FROM api_tokens WHERE id = ?", [id], as: Int64.self)
            try db.execute("UPDATE api_tokens SET last_used_at = ? WHERE id = ?", [time, id])
            if last.map({ $0 / 86_400 != time / 86_400 }) ?? true {
                try AuditQueries.append(AuditEvent(at: time, action: .tokenUsed, actor: "token:" + id), in: db)
            }
        }
    }

    static func tokenHash(_ token: String) -> [UInt8] { Digests.sha256(Array(token.utf8)) }

    static func base64URL(_ bytes: [UInt8]) -> String { Base64URL.encode(bytes) }
}

extension StableID {
    /// A random secret for sessions: 256 bits, URL-safe.
    public static func secret() throws(StoreError) -> String {
        do { return Store.base64URL(try secureRandomBytes(32)) } catch { throw .keyVault(error) }
    }
}
