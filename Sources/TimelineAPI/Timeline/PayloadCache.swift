import HTTPKit
import Synchronization

/// Timeline payloads by patient, revision and window. A payload that cannot have changed (same revision,
/// same window) is served from here instead of being computed again. Bounded in entries and bytes.
/// Payloads are kept as `ByteBuffer`s: a response shares the cached storage instead of copying it, which
/// matters because a cached answer is given on an event loop.
final class PayloadCache: Sendable {
    struct Key: Hashable {
        var patientID: String
        var revision: Int64
        var window: TimelineWindow
    }

    private struct State {
        var payloads: [Key: ByteBuffer] = [:]
        var order: [Key] = []
        var bytes = 0
    }

    let maximumEntries: Int
    let maximumBytes: Int
    private let state = Mutex(State())

    init(maximumEntries: Int = 64, maximumBytes: Int = 32 * 1024 * 1024) {
        self.maximumEntries = maximumEntries
        self.maximumBytes = maximumBytes
    }

    func payload(for key: Key) -> ByteBuffer? { state.withLock { $0.payloads[key] } }

    func store(_ payload: ByteBuffer, for key: Key) {
        guard payload.readableBytes <= maximumBytes / 4 else { return } // one huge page must not flush the rest
        state.withLock { state in
            guard state.payloads[key] == nil else { return }
            state.payloads[key] = payload
            state.order.append(key)
            state.bytes += payload.readableBytes
            while state.order.count > maximumEntries || state.bytes > maximumBytes {
                let oldest = state.order.removeFirst()
                state.bytes -= state.payloads.removeValue(forKey: oldest)?.readableBytes ?? 0
            }
        }
    }

    var count: Int { state.withLock { $0.payloads.count } }

    func removeAll() { state.withLock { $0 = State() } }
}
