import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How a sandbox executable waits to be stopped: until SIGINT or SIGTERM.
public enum ShutdownSignal {
    /// The signal sources, kept alive for the life of the process (only appended to, under the lock).
    private struct Kept: @unchecked Sendable {
        var sources: [DispatchSourceSignal] = []
    }
    private static let kept = Mutex(Kept())

    /// Raised by the first signal: the second one does not resume the wait again.
    private final class Once: Sendable {
        let raised = Atomic<Bool>(false)
    }

    public static func wait(label: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queue = DispatchQueue(label: label + ".signals")
            let once = Once()
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler {
                    if !once.raised.exchange(true, ordering: .acquiringAndReleasing) { continuation.resume() }
                }
                source.resume()
                let held = Kept(sources: [source])
                kept.withLock { $0.sources += held.sources }
            }
        }
    }
}
