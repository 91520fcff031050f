import HealthRecord

/// Everything that can go wrong with the key file, each with a message an operator can act on.
public enum KeyVaultError: Error, Sendable, Equatable, CustomStringConvertible {
    case wrongPassword
    case wrongRecoveryKey
    case emptyPassword
    case malformedRecoveryKey
    case keyFileMissing(path: String)
    case keyFileUnreadable(path: String, reason: String)
    /// Truncated, not JSON, bad checksum, missing fields: the file is damaged, not the password wrong.
    case keyFileDamaged(path: String, reason: String)
    case unsupportedVersion(path: String, version: Int)
    case noRecoverySlot(path: String)
    case crypto(String)

    public var description: String {
        switch self {
        case .wrongPassword:
            return "wrong password: it does not unlock this store's key"
        case .wrongRecoveryKey:
            return "wrong recovery key: it does not unlock this store's key"
        case .emptyPassword:
            return "the password is empty"
        case .malformedRecoveryKey:
            return "that is not a recovery key (expected 32 letters and digits in groups, as printed by `hreaderd init`)"
        case .keyFileMissing(let path):
            return "no key file at \(path): run `hreaderd init` first, or point --state-dir at the right directory"
        case .keyFileUnreadable(let path, let reason):
            return "cannot read the key file \(path): \(reason)"
        case .keyFileDamaged(let path, let reason):
            return "the key file \(path) is damaged (\(reason)); restore it from a backup"
        case .unsupportedVersion(let path, let version):
            return "the key file \(path) has format version \(version), which this hreaderd does not know; upgrade hreaderd"
        case .noRecoverySlot(let path):
            return "the key file \(path) holds no recovery key slot"
        case .crypto(let what):
            return "cryptography failed: \(what)"
        }
    }
}
