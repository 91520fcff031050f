import HealthRecord
import Store
import Synchronization

/// The timeline heads read since the last commit to the store: the read path's memo (`TimelineReader`). A
/// head (which patient, its revision, its earliest time) can only change with a commit, so while the store's
/// commit count is the same, the memo is the answer, and a cached timeline page can be served without
/// touching the database.
final class TimelineHeadMemo: Sendable {
    private struct Key: Hashable {
        var patientID: String?
        var withEarliest: Bool
    }

    /// Heads are per patient (and the current one); a bound keeps ids from the query string from
    /// growing it without limit, although only ids of existing patients are ever remembered.
    static let maximumEntries = 1_024

    private struct State {
        /// The store the heads were read from. Weak: a store opened again (unlocked anew) is another one, whose
        /// count may be the same number, and the memo must not keep a locked store's connections open.
        weak var store: Store?
        var commitCount: UInt32 = 0
        var heads: [Key: TimelineHead] = [:]
    }

    private let state = Mutex(State())

    /// What `head` last answered for `store`, when no transaction has committed since; nil otherwise.
    /// Memory only, never blocks: for answering from a cache on an event loop.
    func known(patientID: String?, withEarliest: Bool, in store: Store) -> TimelineHead? {
        guard let count = store.commitCount else { return nil }
        let key = Key(patientID: patientID, withEarliest: withEarliest)
        return state.withLock { $0.store === store && $0.commitCount == count ? $0.heads[key] : nil }
    }

    /// The head read from `store` (`Store.timelineHead`), remembered until the next commit.
    func head(patientID: String?, withEarliest: Bool, in store: Store) async throws(StoreError) -> TimelineHead? {
        // Read the count before the store: a commit in between then only makes the memo miss once more.
        let count = store.commitCount
        let head = try await store.timelineHead(patientID: patientID, withEarliest: withEarliest)
        if let head, let count {
            remember(head, for: Key(patientID: patientID, withEarliest: withEarliest), in: store, commitCount: count)
        }
        return head
    }

    /// Forgets every head: they are patient data, and leave memory with the key.
    func forget() { state.withLock { $0 = State() } }

    /// Remembers `head`, read from `store` after its count was `commitCount`.
    private func remember(_ head: TimelineHead, for key: Key, in store: Store, commitCount: UInt32) {
        state.withLock { state in
            if state.store !== store || state.commitCount != commitCount || state.heads.count >= Self.maximumEntries {
                state.heads.removeAll(keepingCapacity: true)
                state.store = store
                state.commitCount = commitCount
            }
            state.heads[key] = head
        }
    }
}
