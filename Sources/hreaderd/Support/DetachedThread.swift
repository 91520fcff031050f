#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A thread of its own for work that blocks (a socket read, a writer's wait), off the concurrency pool
/// and the event loops: Foundation's `Thread` without Foundation.
enum DetachedThread {
    private final class Body: @unchecked Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    static func start(_ body: @escaping @Sendable () -> Void) {
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
}
