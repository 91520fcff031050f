import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging
import HealthRecord
import ServiceLifecycle
import Store
import TimelineAPI

/// Talks to systemd while the daemon serves, as one of its services: READY=1 when it starts (the listeners
/// are bound by then), STATUS= lines that say what the daemon is doing, WATCHDOG=1 only while the event loops
/// and the store answer, STOPPING=1 when the daemon shuts down (it is the first service told to stop).
final class ServiceSupervisor: Service {
    let notifier: SystemdNotifier
    let watchdogInterval: Duration?
    /// The store, while it is open.
    let gate: StoreGate
    /// Where the watchdog's probe asks for `/healthz` (an IPv4 loopback or wildcard listener), if any.
    let port: Int?
    let logger: Logger

    init(environment: [String: String], gate: StoreGate, port: Int?, logger: Logger) {
        notifier = SystemdNotifier(environment: environment)
        watchdogInterval = SystemdNotifier.watchdogInterval(environment: environment)
        self.gate = gate
        self.port = port
        self.logger = logger
    }

    func ready(status: String) {
        notifier.send("READY=1\nSTATUS=\(status)\nMAINPID=\(getpid())")
    }

    func status(_ text: String) { notifier.send("STATUS=\(text)") }

    func stopping() { notifier.send("STOPPING=1\nSTATUS=stopping") }

    /// What the daemon is doing, for `systemctl status`.
    static func statusLine(gate: StoreGate) async -> String {
        guard let store = try? gate.store() else { return "locked: waiting for a sign-in" }
        let count = (try? await store.patients().count) ?? 0
        return "serving \(count) patient\(count == 1 ? "" : "s")"
    }

    /// READY=1, then supervision until the daemon shuts down, then STOPPING=1.
    func run() async {
        ready(status: await Self.statusLine(gate: gate))
        await cancelWhenGracefulShutdown { [self] in await supervise() }
        stopping()
    }

    /// Until cancelled: every half watchdog interval, probe the HTTP side and the store and, when both
    /// answer, pet the watchdog. Also refreshes the status line when it changes.
    private func supervise() async {
        let interval = watchdogInterval.map { $0 / 2 } ?? .seconds(10)
        var lastStatus = ""
        while !Task.isCancelled {
            if watchdogInterval != nil {
                var httpAnswers = true
                if let port { httpAnswers = await HealthProbe.check(port: port) }
                let storeAnswers = await storeAnswers()
                if httpAnswers && storeAnswers {
                    notifier.send("WATCHDOG=1")
                } else {
                    logger.warning("watchdog withheld: \(httpAnswers ? "" : "the HTTP side did not answer ")\(storeAnswers ? "" : "the store did not answer")")
                }
            }
            let status = await Self.statusLine(gate: gate)
            if status != lastStatus {
                self.status(status)
                lastStatus = status
            }
            try? await Task.sleep(for: interval)
        }
    }

    private func storeAnswers() async -> Bool {
        guard let store = try? gate.store() else { return true } // locked: nothing to ask
        return (try? await store.read { db in try db.scalar("SELECT 1", as: Int.self) }) == 1
    }
}
