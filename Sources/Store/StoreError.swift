import HealthRecord
import FoundationEssentials

/// Every failure the store reports. Each case reads as one line an operator can act on.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    case keyVault(KeyVaultError)
    case database(DatabaseError)
    case stateDirectoryMissing(path: String)
    case stateDirectoryNotADirectory(path: String)
    case alreadyInitialised(path: String)
    case databaseMissing(path: String)
    /// The key unwrapped from the key file does not open the database: the two files do not belong together.
    case keyDoesNotMatchDatabase(path: String)
    case io(String)
    case invalidInput(String)
    case notFound(String)
    case closed
    /// An import into a store opened without an entry encoder (`Store.Options.entryEncoder`): a
    /// program's mistake, not the user's.
    case noEntryEncoder
    /// A part of a timeline page read in parts (`TimelineOutline`) found the patient changed (or removed)
    /// since the page began: its parts would not make one page.
    case changedDuringRead

    public var description: String {
        switch self {
        case .keyVault(let error): return error.description
        case .database(let error):
            if error.isDiskFull { return "the disk is full: \(error.message)" }
            if error.isReadOnly { return "the store is read-only: \(error.message)" }
            if error.isCannotOpen {
                return "cannot open or create the store's files: is the state directory read-only or not writable? (\(error.message))"
            }
            if error.isIOError { return "the store's files cannot be written (read-only file system or I/O error): \(error.message)" }
            if error.isBusy {
                return "the store is busy: another process is writing to it (an import or a sync from the command line?); try again when it has finished (\(error.message))"
            }
            return "database error: \(error.message)"
        case .stateDirectoryMissing(let path):
            return "the state directory \(path) does not exist: run `hreaderd init` or pass --state-dir"
        case .stateDirectoryNotADirectory(let path):
            return "\(path) is not a directory"
        case .alreadyInitialised(let path):
            return "a store already exists at \(path); refusing to overwrite it"
        case .databaseMissing(let path):
            return "the key file exists but the database \(path) is missing; restore it from a backup"
        case .keyDoesNotMatchDatabase(let path):
            return "the key file does not open the database \(path): they do not belong to the same store"
        case .io(let message): return message
        case .invalidInput(let message): return message
        case .notFound(let what): return "\(what) not found"
        case .closed: return "the store is closed (locked)"
        case .noEntryEncoder: return "this program opened the store without an entry encoder, so it cannot import"
        case .changedDuringRead: return "the record changed while its page was being read"
        }
    }
}

extension StoreError {
    /// Runs `body`, turning SQLite and key errors into `StoreError`.
    @discardableResult
    static func wrapping<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do { return try body() } catch { throw wrap(error) }
    }
}
