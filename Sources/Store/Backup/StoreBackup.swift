import HealthRecord
import CSQLCipher
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension Store {
    /// An online, consistent copy of the store in one backup file (`BackupFile`): SQLite's backup API copies
    /// the database from a reader's snapshot into a file encrypted with the same key (never a file copy of
    /// a live WAL database), while the daemon goes on serving and importing; then the key file and that copy
    /// are written to `path` through a temporary file, synced and renamed.
    public func backup(to path: String, now: Int64 = Store.now()) throws(StoreError) -> BackupFile.Info {
        let keyFile: [UInt8]
        do { keyFile = try FileSystem.readFile(directory.keyFilePath, limit: BackupFile.maximumKeyFileBytes) } catch { throw .io(error.description) }
        Self.removeLeftovers(of: path)
        let copy = path + ".db-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(copy + suffix) } }
        try readSync { source in
            let destination = try openWithStoreKey(copy)
            // The copy is one file: no WAL beside it.
            try destination.execute("PRAGMA journal_mode = DELETE")
            guard let backup = sqlite3_backup_init(destination.handle, "main", source.handle, "main") else {
                throw destination.error(code: sqlite3_errcode(destination.handle), sql: "sqlite3_backup_init")
            }
            // All pages in one step, inside the reader's snapshot: consistent, and writers are not held up (WAL).
            let step = sqlite3_backup_step(backup, -1)
            let finish = sqlite3_backup_finish(backup)
            guard step == SQLITE_DONE, finish == SQLITE_OK else {
                throw destination.error(code: step == SQLITE_DONE ? finish : step, sql: "sqlite3_backup_step")
            }
            let check = try destination.scalar("PRAGMA quick_check", as: String.self)
            guard check == "ok" else { throw StoreError.io("the backup copy failed its check: \(check ?? "no answer")") }
        }
        return try BackupFile.write(keyFile: keyFile, database: copy, createdAt: now, to: path)
    }

    /// A backup killed halfway (SIGKILL, power loss) leaves its temporary files beside `path`: those of
    /// processes that are gone are removed (never a file that looks complete: those have no such suffix).
    static func removeLeftovers(of path: String) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path, name = url.lastPathComponent
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            for marker in [".partial-", ".db-"] where entry.hasPrefix(name + marker) {
                let rest = entry.dropFirst(name.count + marker.count)
                guard let pid = Int32(rest.prefix { $0.isNumber }), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
                unlink(directory + "/" + entry)
            }
        }
    }

    /// Restores a backup into `directory`, which must not hold a store unless `replace`: checks the file
    /// whole, writes the key file and the database under temporary names, unlocks the key with `unlock`
    /// (the password or the recovery key), checks the database's integrity, notes the restore in its audit
    /// trail (by `actor`), then renames both into place.
    /// `announce` is told of each migration a backup from an older hreaderd needs, as it begins (`Options.onUpgrade`).
    public static func restore(_ path: String, into directory: StateDirectory, replace: Bool = false, actor: String = "cli",
                               announce: (@Sendable (String) -> Void)? = nil,
                               unlock: (KeyVault) throws(StoreError) -> StoreKey) throws(StoreError) -> BackupFile.Info {
        do {
            try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .io("cannot create \(directory.path): \(error)")
        }
        try directory.checkExists()
        if !replace {
            for existing in [directory.keyFilePath, directory.databasePath] where FileSystem.exists(existing) {
                throw .alreadyInitialised(path: existing)
            }
        }
        let keyPath = directory.keyFilePath + ".restoring", databasePath = directory.databasePath + ".restoring"
        defer { for leftover in [keyPath, databasePath, databasePath + "-wal", databasePath + "-shm"] { unlink(leftover) } }
        let info = try BackupFile.read(path, keyFileTo: keyPath, databaseTo: databasePath)
        let key = try unlock(KeyVault(path: keyPath))
        do {
            let check = try Database(path: databasePath, key: key, mode: .readWrite).scalar("PRAGMA integrity_check", as: String.self)
            guard check == "ok" else { throw StoreError.io("the restored database failed its integrity check: \(check ?? "no answer")") }
            let db = try Migrator.migrate(opening: { try Database(path: databasePath, key: key, mode: .readWrite) }, announce: announce)
            try AuditQueries.append(AuditEvent(action: .restore, actor: actor, detail: "backup taken at \(info.createdAt)"), in: db)
            try db.execute("PRAGMA journal_mode = DELETE")
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            if error.isNotADatabase { throw .keyDoesNotMatchDatabase(path: path) }
            throw .database(error)
        } catch {
            throw .wrap(error)
        }
        // The old store's WAL must not be replayed over the restored database.
        for stale in [directory.databasePath + "-wal", directory.databasePath + "-shm"] { unlink(stale) }
        guard rename(databasePath, directory.databasePath) == 0, rename(keyPath, directory.keyFilePath) == 0 else {
            throw .io("cannot move the restored store into \(directory.path): \(String(cString: strerror(errno)))")
        }
        do { try FileSystem.syncDirectory(containing: directory.databasePath) } catch { throw .io(error.description) }
        return info
    }
}
