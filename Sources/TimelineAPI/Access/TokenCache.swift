import HealthRecord
import Store
import Synchronization

/// Tokens verified recently, by the `Authorization` header that carried them, so that a client sending the same token on every request does not cost a
/// store read each time. An entry holds for `lifetime` seconds at most, and only while nothing has been
/// committed to the store since it was verified (the store's commit count, which sees commits of other
/// processes too): a revocation, here or by `hreaderd token revoke`, takes effect at once. Where the
/// store has no commit count, a revocation by this process still does, and one by another process
/// within `lifetime`.
final class TokenCache: Sendable {
    static let lifetime: Int64 = 1
    static let maximumEntries = 1_000

    private struct Entry {
        var tokenID: String
        /// The audit trail's name for it, made once (`AccessPolicy.actor(tokenID:)`).
        var actor: String
        var verifiedAt: Int64
        var revocations: Int
        var commitCount: UInt32?
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// The token that `authorization` (the header's value as sent) carried when it was verified: its id, and
    /// the audit trail's name for it.
    func token(for authorization: String, store: Store, now: Int64) -> (id: String, actor: String)? {
        let revocations = store.tokenRevocationCount
        let commitCount = store.commitCount
        return entries.withLock { entries in
            guard let entry = entries[authorization] else { return nil }
            guard entry.revocations == revocations, entry.commitCount == commitCount,
                  now - entry.verifiedAt < Self.lifetime, now >= entry.verifiedAt else {
                entries[authorization] = nil
                return nil
            }
            return (entry.tokenID, entry.actor)
        }
    }

    /// Remembers a verified token. `revocationsBefore` and `commitCountBefore` are the store's counts read
    /// before verifying: a change racing with the verification then invalidates the entry.
    func remember(_ authorization: String, tokenID: String, now: Int64, revocationsBefore: Int, commitCountBefore: UInt32?) {
        entries.withLock { entries in
            if entries.count >= Self.maximumEntries { entries.removeAll() }
            entries[authorization] = Entry(tokenID: tokenID, actor: AccessPolicy.actor(tokenID: tokenID), verifiedAt: now, revocations: revocationsBefore, commitCount: commitCountBefore)
        }
    }
}
