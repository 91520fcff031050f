import Synchronization

/// Wakes waiting runners: when a job is queued in this process (`POST /imports`) or a job ends. A waiter
/// passes the generation it saw before looking for work, so that a signal between its look and its wait
/// is not lost.
public final class Wakeup: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var woken: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// The process-wide signal for new jobs.
    public static let jobs = Wakeup()

    public init() {}

    public var generation: UInt64 { state.withLock { $0.generation } }

    public func signal() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generation &+= 1
            let waiters = Array(state.waiters.values)
            state.waiters.removeAll()
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns after a signal newer than `generation`, after `seconds`, or when the task is cancelled.
    public func wait(since generation: UInt64, upTo seconds: Double) async {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task { [self] in
            do {
                try await Task.sleep(for: .seconds(max(0, seconds)))
                wake(id)
            } catch {}
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.generation != generation || state.woken.remove(id) != nil { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            wake(id)
        }
        timer.cancel()
        state.withLock { _ = $0.woken.remove(id) }
    }

    private func wake(_ id: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
            state.woken.insert(id)
            return nil
        }
        waiter?.resume()
    }
}
