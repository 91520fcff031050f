import HTTPKit
import HealthRecord
import Store
import Synchronization

/// Writes audit events to the store, and keeps the ones that happen while it is locked (a failed sign-in,
/// the lock itself) until it is open again, with their own times.
public final class AuditTrail: Sendable {
    /// Events kept while locked beyond this many are dropped, oldest first (a flood of wrong passwords).
    static let maximumPending = 1_000
    private let pending = Mutex<[AuditEvent]>([])

    public init() {}

    /// Records `event` now, or keeps it for when the store is open.
    public func record(_ event: AuditEvent, store: Store?) async {
        guard let store else {
            keep(event)
            return
        }
        let waiting = pending.withLock { list -> [AuditEvent] in
            defer { list.removeAll() }
            return list
        }
        for event in waiting + [event] {
            do { try await store.recordAudit(event) } catch { keep(event) }
        }
    }

    /// Keeps `event` for the next write (never blocks: for paths that must not wait on the store).
    public func keep(_ event: AuditEvent) {
        pending.withLock { list in
            if list.count >= Self.maximumPending { list.removeFirst() }
            list.append(event)
        }
    }
}

/// Who made the request, as the audit trail names them: set by the access policy.
enum ActorKey: ContextKey {
    typealias Value = String?
}
