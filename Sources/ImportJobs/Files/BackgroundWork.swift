import Synchronization

/// Work started on a thread of its own now (`DetachedThread`, not the concurrency pool's), whose result is
/// awaited later: a kept file deflated while its input is read and mapped, instead of on the way to the writer.
final class BackgroundWork<Value: Sendable>: Sendable {
    private enum State {
        case running([CheckedContinuation<Value, Never>])
        case done(Value)
    }

    private let state = Mutex(State.running([]))

    /// `name`: its thread's (`DetachedThread`).
    init(named name: String, _ work: @escaping @Sendable () -> Value) {
        DetachedThread.start(named: name) { [self] in
            let value = work()
            let waiting = state.withLock { state -> [CheckedContinuation<Value, Never>] in
                guard case let .running(waiting) = state else { return [] }
                state = .done(value)
                return waiting
            }
            for continuation in waiting { continuation.resume(returning: value) }
        }
    }

    /// The result, once the work is done.
    var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Value? in
                    switch state {
                    case let .done(value): return value
                    case var .running(waiting):
                        waiting.append(continuation)
                        state = .running(waiting)
                        return nil
                    }
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
