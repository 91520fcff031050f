import Dispatch
import HealthRecord
import Store

/// Checks a password against the key file, and opens the store with it when the daemon is locked.
/// scrypt costs ~0.1 s of CPU and 32 MiB: it runs on one queue of its own, one at a time, never on the
/// event loop or the concurrency pool.
public struct Unlocker: Sendable {
    public let directory: StateDirectory
    public let storeOptions: Store.Options
    private static let queue = DispatchQueue(label: "hreaderd.unlock")

    public init(directory: StateDirectory, storeOptions: Store.Options = .timeline) {
        self.directory = directory
        self.storeOptions = storeOptions
    }

    /// The key the password unwraps; `.keyVault(.wrongPassword)` when it is wrong.
    func key(for password: String) async throws(StoreError) -> StoreKey {
        let directory = directory
        let result: Result<StoreKey, StoreError> = await withCheckedContinuation { continuation in
            Self.queue.async {
                continuation.resume(returning: Result { () throws(StoreError) -> StoreKey in
                    try directory.keyVault.unlock(password: password)
                })
            }
        }
        return try result.get()
    }

    func open(with key: StoreKey) async throws(StoreError) -> Store {
        let directory = directory
        let options = storeOptions
        let result: Result<Store, StoreError> = await withCheckedContinuation { continuation in
            Self.queue.async {
                continuation.resume(returning: Result { () throws(StoreError) -> Store in
                    try Store.open(at: directory, key: key, options: options)
                })
            }
        }
        return try result.get()
    }
}
