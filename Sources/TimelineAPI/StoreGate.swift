import HTTPKit
import HealthRecord
import Store
import Synchronization

/// Holds the open store while the daemon is unlocked. Locking drops it (and with it the key); routes
/// that need patient data get `423 locked` until it is unlocked again.
public final class StoreGate: Sendable {
    private let state: Mutex<Store?>

    public init(store: Store? = nil) { state = Mutex(store) }

    public var isLocked: Bool { state.withLock { $0 == nil } }

    /// The open store, or `423 locked`.
    public func store() throws(HTTPError) -> Store {
        guard let store = state.withLock({ $0 }) else { throw APIError.locked }
        return store
    }

    public func unlock(with store: Store) {
        let previous = state.withLock { current -> Store? in
            let previous = current
            current = store
            return previous
        }
        if let previous, previous !== store { previous.close() }
    }

    /// Closes the store and forgets it: the key leaves memory with the last connection.
    public func lock() {
        let previous = state.withLock { current -> Store? in
            let previous = current
            current = nil
            return previous
        }
        previous?.close()
    }
}
