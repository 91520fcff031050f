import HealthRecord
import Store
import TimelineAPI

/// Stores for tests: the daemon's options (the timeline's entry encoder) with cheap scrypt settings, so
/// that a test does not spend seconds on key derivation (the real settings are exercised by the CLI tests).
public enum TestStore {
    public static let fastScrypt = ScryptParameters(logN: 10, r: 8, p: 1)

    /// A new store in `path` (a state directory that does not exist yet).
    public static func create(at path: String, password: String = "pw") throws -> (store: Store, recoveryKey: RecoveryKey) {
        try Store.create(at: StateDirectory(path: path), password: password, passwordParameters: fastScrypt,
                         recoveryParameters: fastScrypt, options: .timeline)
    }
}
