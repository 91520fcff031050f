import HealthRecord
import Glibc

/// Why a content pack was refused, or the library could not be read. Each case says, in one sentence, what
/// was wrong and what stays as it was; `code` is a short stable name for the HTTP side and scripts.
public enum LibraryError: Error, Sendable, Equatable, CustomStringConvertible {
    // The pack's files
    case fileMissing(path: String)
    case fileTooLarge(path: String, limit: Int)
    // The signature
    case signatureMalformed(reason: String)
    case signatureNotVerified(trustedKeys: Int)
    case bundledPackMismatch
    // The manifest
    case manifestMalformed(reason: String)
    case unsupportedFormat(found: Int, supported: Int)
    // The database file
    case databaseSizeMismatch(expected: Int64, found: Int64)
    case gzipHashMismatch
    case gzipCorrupt(reason: String)
    case databaseTooLarge(limit: Int64)
    case databaseHashMismatch
    case databaseUnreadable(reason: String)
    case unexpectedSchema(reason: String)
    case infoMismatch(key: String, manifest: String, database: String)
    // Installing
    case notNewer(installed: String, offered: String)
    case installInProgress
    case diskFull(path: String)
    case io(operation: String, path: String, errno: Int32)
    // Keys
    case keyInvalid(path: String, reason: String)
    // Reading
    case notInstalled
    case installedPackDamaged(reason: String)

    /// A short stable name of the error (`signature_not_verified`), for the HTTP layer and scripts.
    public var code: String {
        switch self {
        case .fileMissing: return "file_missing"
        case .fileTooLarge: return "file_too_large"
        case .signatureMalformed: return "signature_malformed"
        case .signatureNotVerified: return "signature_not_verified"
        case .bundledPackMismatch: return "bundled_pack_mismatch"
        case .manifestMalformed: return "manifest_malformed"
        case .unsupportedFormat: return "unsupported_format"
        case .databaseSizeMismatch: return "database_size_mismatch"
        case .gzipHashMismatch: return "gzip_hash_mismatch"
        case .gzipCorrupt: return "gzip_corrupt"
        case .databaseTooLarge: return "database_too_large"
        case .databaseHashMismatch: return "database_hash_mismatch"
        case .databaseUnreadable: return "database_unreadable"
        case .unexpectedSchema: return "unexpected_schema"
        case .infoMismatch: return "info_mismatch"
        case .notNewer: return "not_newer"
        case .installInProgress: return "install_in_progress"
        case .diskFull: return "disk_full"
        case .io: return "io"
        case .keyInvalid: return "key_invalid"
        case .notInstalled: return "not_installed"
        case .installedPackDamaged: return "installed_pack_damaged"
        }
    }

    public var description: String {
        switch self {
        case let .fileMissing(path):
            return "\(path) does not exist (a pack is a folder of manifest.json, manifest.json.sig and the database's .gz file)."
        case let .fileTooLarge(path, limit):
            return "\(path) is larger than \(limit) bytes, far more than any real pack file of its kind: refused unread."
        case let .signatureMalformed(reason):
            return "manifest.json.sig is not an Ed25519 signature (\(reason)): the pack was not installed."
        case let .signatureNotVerified(trustedKeys):
            return "The signature of manifest.json does not verify under any of the \(trustedKeys) trusted key(s): the manifest was changed after signing, or the pack was signed by a key this installation does not trust. The pack was not installed."
        case .bundledPackMismatch:
            return "The bundled pack's manifest.json does not have the SHA-256 recorded when the program was built: the pack was not installed."
        case let .manifestMalformed(reason):
            return "manifest.json is not a valid pack manifest: \(reason)."
        case let .unsupportedFormat(found, supported):
            return "The pack is in format \(found); this hreaderd reads format \(supported) only: update hreaderd to install it. The installed pack stays."
        case let .databaseSizeMismatch(expected, found):
            return "The database file is \(found) bytes, the manifest says \(expected): the download is incomplete or the file was changed. The installed pack stays."
        case .gzipHashMismatch:
            return "The database file's SHA-256 does not match the manifest's gz_sha256: the file was changed or damaged. The installed pack stays."
        case let .gzipCorrupt(reason):
            return "The database file is not a whole gzip stream (\(reason)): the download is incomplete or damaged. The installed pack stays."
        case let .databaseTooLarge(limit):
            return "The database inflates to more than \(limit) bytes: refused. The installed pack stays."
        case .databaseHashMismatch:
            return "The decompressed database's SHA-256 does not match the manifest's sha256. The installed pack stays."
        case let .databaseUnreadable(reason):
            return "The pack's database cannot be read: \(reason). The installed pack stays."
        case let .unexpectedSchema(reason):
            return "The pack's database is not in the expected shape: \(reason). The installed pack stays."
        case let .infoMismatch(key, manifest, database):
            return "The database's info says \(key) is \(database.prefix(80)), the manifest says \(manifest.prefix(80)): the two do not belong together. The installed pack stays."
        case let .notNewer(installed, offered):
            return "Version \(offered) is not newer than the installed version \(installed): nothing was changed."
        case .installInProgress:
            return "Another installation of a pack into this library is in progress: try again when it has finished."
        case let .diskFull(path):
            return "The disk is full (writing \(path)): the pack was not installed and the installed pack stays."
        case let .io(operation, path, errno):
            return "\(operation) \(path) failed: \(String(cString: strerror(errno))). The installed pack stays."
        case let .keyInvalid(path, reason):
            return "\(path) is not a usable Ed25519 key in PEM: \(reason)."
        case .notInstalled:
            return "No library pack is installed."
        case let .installedPackDamaged(reason):
            return "The installed library pack cannot be read: \(reason)."
        }
    }

    /// The error of a failed system call on `path`: ENOSPC and EFBIG (a file-size limit) read as a full disk.
    static func system(_ operation: String, _ path: String, _ code: Int32 = errno) -> LibraryError {
        code == ENOSPC || code == EFBIG || code == EDQUOT ? .diskFull(path: path) : .io(operation: operation, path: path, errno: code)
    }
}
