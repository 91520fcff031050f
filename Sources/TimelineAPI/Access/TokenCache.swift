import Store
import Synchronization

/// Tokens verified recently, so that a client sending the same token on every request does not cost a
/// store read each time. An entry holds for `lifetime` seconds at most, and for no time at all after
/// this process revokes a token; a revocation by another process (`hreaderd token revoke`) takes effect
/// within `lifetime`.
final class TokenCache: Sendable {
    static let lifetime: Int64 = 1
    static let maximumEntries = 1_000

    private struct Entry {
        var tokenID: String
        var verifiedAt: Int64
        var revocations: Int
    }

    private let entries = Mutex<[String: Entry]>([:])

    func tokenID(for token: String, store: Store, now: Int64) -> String? {
        let revocations = store.tokenRevocationCount
        return entries.withLock { entries in
            guard let entry = entries[token] else { return nil }
            guard entry.revocations == revocations, now - entry.verifiedAt < Self.lifetime, now >= entry.verifiedAt else {
                entries[token] = nil
                return nil
            }
            return entry.tokenID
        }
    }

    func remember(_ token: String, tokenID: String, now: Int64, revocationsBefore: Int) {
        entries.withLock { entries in
            if entries.count >= Self.maximumEntries { entries.removeAll() }
            entries[token] = Entry(tokenID: tokenID, verifiedAt: now, revocations: revocationsBefore)
        }
    }
}
