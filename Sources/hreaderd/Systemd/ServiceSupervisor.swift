import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging
import HealthRecord
import Store
import TimelineAPI

/// Talks to systemd while the daemon serves: READY=1 once listening, STATUS= lines that say what it is
/// doing, WATCHDOG=1 only while the event loops and the store answer, STOPPING=1 at shutdown.
final class ServiceSupervisor: Sendable {
    let notifier: SystemdNotifier
    let watchdogInterval: Duration?
    let logger: Logger

    init(environment: [String: String], logger: Logger) {
        notifier = SystemdNotifier(environment: environment)
        watchdogInterval = SystemdNotifier.watchdogInterval(environment: environment)
        self.logger = logger
    }

    func ready(status: String) {
        notifier.send("READY=1\nSTATUS=\(status)\nMAINPID=\(getpid())")
    }

    func status(_ text: String) { notifier.send("STATUS=\(text)") }

    func stopping() { notifier.send("STOPPING=1\nSTATUS=stopping") }

    /// What the daemon is doing, for `systemctl status`.
    static func statusLine(app: TimelineApp) async -> String {
        guard let store = try? app.gate.store() else { return "locked: waiting for a sign-in" }
        let count = (try? await store.patients().count) ?? 0
        return "serving \(count) patient\(count == 1 ? "" : "s")"
    }

    /// Until cancelled: every half watchdog interval, probe the HTTP side and the store and, when both
    /// answer, pet the watchdog. Also refreshes the status line when it changes.
    func run(app: TimelineApp, port: Int?) async {
        let interval = watchdogInterval.map { $0 / 2 } ?? .seconds(10)
        var lastStatus = ""
        while !Task.isCancelled {
            if watchdogInterval != nil {
                var httpAnswers = true
                if let port { httpAnswers = await HealthProbe.check(port: port) }
                let storeAnswers = await storeAnswers(app)
                if httpAnswers && storeAnswers {
                    notifier.send("WATCHDOG=1")
                } else {
                    logger.warning("watchdog withheld: \(httpAnswers ? "" : "the HTTP side did not answer ")\(storeAnswers ? "" : "the store did not answer")")
                }
            }
            let status = await Self.statusLine(app: app)
            if status != lastStatus {
                self.status(status)
                lastStatus = status
            }
            try? await Task.sleep(for: interval)
        }
    }

    private func storeAnswers(_ app: TimelineApp) async -> Bool {
        guard let store = try? app.gate.store() else { return true } // locked: nothing to ask
        return (try? await store.read { db in try db.scalar("SELECT 1", as: Int.self) }) == 1
    }
}
