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
///
/// Each thread is named (`top -H`, `perf`, `/proc/PID/task/*/comm`): unnamed, it would show the name of the
/// thread that started it, often the concurrency pool's `com.apple.root.default-qos`, which it is not.
public enum DetachedThread {
    /// The longest name Linux keeps for a thread, in bytes (16 with its terminating zero).
    public static let maxNameBytes = 15

    private final class Body: @unchecked Sendable {
        let name: String
        let run: @Sendable () -> Void
        init(_ name: String, _ run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// Starts `body` on a new thread named `name` (cut to `maxNameBytes`), which ends with it.
    public static func start(named name: String = "hreaderd-work", _ body: @escaping @Sendable () -> Void) {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Body(name, body)).toOpaque()
        let created = pthread_create(&thread, nil, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            DetachedThread.nameThisThread(body.name)
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

    /// Runs `body` on a new thread named `name` and returns what it returns; the calling task waits,
    /// suspended, holding no thread of the pool.
    public static func run<T: Sendable>(named name: String = "hreaderd-work", _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            start(named: name) { continuation.resume(returning: body()) }
        }
    }

    /// Names the calling thread, through `/proc` (glibc's `pthread_setname_np` is not visible to Swift: it needs
    /// `_GNU_SOURCE`). A name is a diagnostic: where it cannot be set, the thread keeps the one it had.
    static func nameThisThread(_ name: String) {
        let file = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard file >= 0 else { return }
        defer { close(file) }
        let bytes = Array(cut(name).utf8)
        _ = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
    }

    /// `name`'s longest prefix of whole characters within `maxNameBytes` bytes of UTF-8.
    static func cut(_ name: String) -> String {
        var bytes = 0
        var out = ""
        for character in name {
            bytes += character.utf8.count
            guard bytes <= maxNameBytes else { break }
            out.append(character)
        }
        return out
    }
}
