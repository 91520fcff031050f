import HTTPKit
import Synchronization

/// Timeline payloads by patient, revision and window. A payload that cannot have changed (same revision,
/// same window) is served from here instead of being computed again. Bounded by a byte budget (the
/// daemon's `--page-cache-mib`), oldest first out; a page over a quarter of it is never kept, so that one
/// huge page cannot flush the rest.
/// Payloads are kept as `ByteBuffer`s: a response shares the cached storage instead of copying it, which
/// matters because a cached answer is given on an event loop.
final class PayloadCache: Sendable {
    struct Key: Hashable {
        var patientID: String
        var revision: Int64
        var window: TimelineWindow
        /// A linked person's patients (the head first). Its revision is the sum of theirs, which only grows
        /// while they stay linked; once they are unlinked, the head's own revision can reach a sum the person
        /// had, and the person's page must not be taken for the head's own.
        var members: [String] = []
    }

    private struct State {
        var payloads: [Key: ByteBuffer] = [:]
        var order: [Key] = []
        var bytes = 0
    }

    /// The default budget: 32 MiB, a few hundred ordinary pages.
    static let defaultBytes = 32 << 20

    let maximumBytes: Int
    private let state = Mutex(State())

    init(maximumBytes: Int = PayloadCache.defaultBytes) {
        self.maximumBytes = max(0, maximumBytes)
    }

    func payload(for key: Key) -> ByteBuffer? { state.withLock { $0.payloads[key] } }

    func store(_ payload: ByteBuffer, for key: Key) {
        guard payload.readableBytes <= maximumBytes / 4 else { return } // one huge page must not flush the rest
        state.withLock { state in
            guard state.payloads[key] == nil else { return }
            state.payloads[key] = payload
            state.order.append(key)
            state.bytes += payload.readableBytes
            while state.bytes > maximumBytes, !state.order.isEmpty {
                let oldest = state.order.removeFirst()
                state.bytes -= state.payloads.removeValue(forKey: oldest)?.readableBytes ?? 0
            }
        }
    }

    var count: Int { state.withLock { $0.payloads.count } }

    func removeAll() { state.withLock { $0 = State() } }
}
