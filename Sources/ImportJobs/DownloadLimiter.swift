import Synchronization

/// A counting semaphore for async code: at most `slots` holders at once, waiters served in order. A
/// waiter whose task is cancelled leaves the queue at once (and gets no slot).
public final class DownloadLimiter: Sendable {
    private struct State {
        var available: Int
        var queue: [UInt64] = []
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 0
        var holders = 0
        var mostHolders = 0
    }

    private let state: Mutex<State>

    public init(slots: Int) {
        state = Mutex(State(available: max(1, slots)))
    }

    /// The most holders there ever were at once.
    public var mostHolders: Int { state.withLock { $0.mostHolders } }

    /// Runs `body` holding a slot; `.stopped` when cancelled while waiting for one.
    public func withSlot<T>(_ body: () async throws(SyncError) -> T) async throws(SyncError) -> T {
        guard await acquire() else { throw .stopped }
        defer { release() }
        return try await body()
    }

    private func acquire() async -> Bool {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let immediate = state.withLock { state -> Bool? in
                    if state.cancelledEarly.remove(id) != nil { return false }
                    if state.available > 0 {
                        state.available -= 1
                        state.holders += 1
                        state.mostHolders = max(state.mostHolders, state.holders)
                        return true
                    }
                    state.queue.append(id)
                    state.waiters[id] = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                if let waiter = state.waiters.removeValue(forKey: id) {
                    state.queue.removeAll { $0 == id }
                    return waiter
                }
                state.cancelledEarly.insert(id)
                return nil
            }
            waiter?.resume(returning: false)
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            while !state.queue.isEmpty {
                let id = state.queue.removeFirst()
                if let waiter = state.waiters.removeValue(forKey: id) {
                    // The slot passes straight to the next waiter: `holders` stays.
                    return waiter
                }
            }
            state.holders -= 1
            state.available += 1
            return nil
        }
        next?.resume(returning: true)
    }
}
