import Dispatch
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Waits for SIGTERM or SIGINT (systemd stops services with SIGTERM; a terminal sends SIGINT).
enum ShutdownSignal {
    static func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let queue = DispatchQueue(label: "hreaderd.signals")
            let once = OnceFlag()
            var sources: [DispatchSourceSignal] = []
            for signalNumber in [SIGTERM, SIGINT] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
                source.setEventHandler {
                    if once.claim() { continuation.resume(returning: signalNumber) }
                }
                source.resume()
                sources.append(source)
            }
            // The sources must outlive this closure: keep them until the process ends.
            SignalSources.keep(sources)
        }
    }
}

/// True the first time only.
final class OnceFlag: Sendable {
    private let claimed = Mutex(false)
    func claim() -> Bool {
        claimed.withLock { claimed in
            if claimed { return false }
            claimed = true
            return true
        }
    }
}

enum SignalSources {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    static func keep(_ new: [DispatchSourceSignal]) { sources.append(contentsOf: new) }
}
