import HealthRecord
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's state directory (mode 0700): the key file and the encrypted database with its WAL.
public struct StateDirectory: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    public var keyFilePath: String { path + "/hreaderd.key" }
    public var databasePath: String { path + "/hreaderd.db" }
    public var keyVault: KeyVault { KeyVault(path: keyFilePath) }

    /// Fails with a clear error unless the directory exists.
    public func checkExists() throws(StoreError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .stateDirectoryMissing(path: path) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw .stateDirectoryNotADirectory(path: path) }
    }

    /// Creates the directory (and missing parents) and narrows it to 0700. Refuses when a store is already
    /// there.
    func createForNewStore() throws(StoreError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .io("cannot create the state directory \(path): \(error)")
        }
        try checkExists()
        guard chmod(path, 0o700) == 0 else {
            throw .io("cannot set mode 0700 on \(path): \(String(cString: strerror(errno)))")
        }
        for existing in [keyFilePath, databasePath] where FileSystem.exists(existing) {
            throw .alreadyInitialised(path: existing)
        }
    }

    /// The mode bits of the directory, for the permission check and tests.
    public func mode() -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }
}
