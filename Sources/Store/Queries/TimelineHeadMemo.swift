import HealthRecord
import Synchronization

/// The timeline heads read since the last commit to the store. A head (which patient, its revision, its
/// earliest time) can only change with a commit, so while the commit count is the same, the memo is the
/// answer, and a cached timeline page can be served without touching the database.
final class TimelineHeadMemo: Sendable {
    struct Key: Hashable {
        var patientID: String?
        var withEarliest: Bool
    }

    /// Heads are per patient (and the current one); a bound keeps ids from the query string from
    /// growing it without limit, although only ids of existing patients are ever remembered.
    static let maximumEntries = 1_024

    private struct State {
        var commitCount: UInt32 = 0
        var heads: [Key: TimelineHead] = [:]
    }

    private let state = Mutex(State())

    func head(for key: Key, commitCount: UInt32) -> TimelineHead? {
        state.withLock { $0.commitCount == commitCount ? $0.heads[key] : nil }
    }

    /// Remembers `head`, read after the count was `commitCount`.
    func remember(_ head: TimelineHead, for key: Key, commitCount: UInt32) {
        state.withLock { state in
            if state.commitCount != commitCount || state.heads.count >= Self.maximumEntries {
                state.heads.removeAll(keepingCapacity: true)
                state.commitCount = commitCount
            }
            state.heads[key] = head
        }
    }
}
