import ImportJobs
import ServiceLifecycle
import Store

/// Hourly, while the store is open: audit events older than `keepSeconds` go (the only deletion the audit
/// trail knows). Runs until the daemon shuts down; each pruning on a thread of its own (it waits for the
/// store's writer).
public struct AuditPruning: Service {
    let gate: StoreGate
    let keepSeconds: Int64
    let every: Duration
    let now: @Sendable () -> Int64

    public init(gate: StoreGate, keepSeconds: Int64, every: Duration = .seconds(3600), now: @escaping @Sendable () -> Int64 = { Store.now() }) {
        self.gate = gate
        self.keepSeconds = keepSeconds
        self.every = every
        self.now = now
    }

    public func run() async {
        await cancelWhenGracefulShutdown { [self] in
            while !Task.isCancelled {
                if let store = try? gate.store() {
                    let cutoff = now() - keepSeconds
                    _ = await DetachedThread.run(named: "audit-pruning") { try? store.pruneAudit(olderThan: cutoff) }
                }
                try? await Task.sleep(for: every)
            }
        }
    }
}
