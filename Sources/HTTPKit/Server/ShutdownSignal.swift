import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How a server process waits to be stopped: until SIGTERM (systemd stops services with it) or SIGINT (a
/// terminal). The daemon and the sandbox servers wait the same way.
public enum ShutdownSignal {
    /// The signal sources, kept alive for the life of the process (only appended to, under the lock).
    private struct Kept: @unchecked Sendable {
        var sources: [DispatchSourceSignal] = []
    }
    private static let kept = Mutex(Kept())

    /// Raised by the first signal: a second one does not resume the wait again.
    private final class Once: Sendable {
        let raised = Atomic<Bool>(false)
    }

    /// Returns the number of the first SIGTERM or SIGINT received. `label` names the queue the signals
    /// are handled on.
    @discardableResult
    public static func wait(label: String) async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let queue = DispatchQueue(label: label + ".signals")
            let once = Once()
            for number in [SIGTERM, SIGINT] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler {
                    if !once.raised.exchange(true, ordering: .acquiringAndReleasing) { continuation.resume(returning: number) }
                }
                source.resume()
                let held = Kept(sources: [source])
                kept.withLock { $0.sources += held.sources }
            }
        }
    }
}
