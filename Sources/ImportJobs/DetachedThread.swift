#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A thread of its own for work that blocks or computes for long (parsing a large file, deflating it, a
/// socket read), off the Swift concurrency pool and the event loops: Foundation's `Thread` without
/// Foundation.
///
/// Not `DispatchQueue.global()`: on Linux, Swift's cooperative pool runs on the same global queue, as many
/// threads as there are cores. Two seconds of parsing there on a 2-core machine hold half of every task's
/// threads for two seconds, and two such works hold all of them: no request is answered meanwhile.
public enum DetachedThread {
    private final class Body: @unchecked Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts `body` on a new thread, which ends with it.
    public static func start(_ body: @escaping @Sendable () -> Void) {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        let created = pthread_create(&thread, nil, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            body.run()
            return nil
        }, context)
        if created == 0 {
            pthread_detach(thread)
        } else {
            // No thread to be had: the work runs here rather than not at all.
            Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
        }
    }

    /// Runs `body` on a new thread and returns what it returns; the calling task waits, suspended, holding
    /// no thread of the pool.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            start { continuation.resume(returning: body()) }
        }
    }
}
