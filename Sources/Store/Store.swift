import HealthRecord
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// The encrypted store: one SQLCipher database in the state directory, opened with the store key.
///
/// `Store` is `Sendable` and safe to call from many tasks: writes are serialised on one writer connection,
/// reads run concurrently on a pool of reader connections that never wait for the writer (WAL).
///
/// The `…Sync` twins of the async methods block the calling thread until a connection is free: they are
/// `package`, for the command line, the tools and the tests of this package, never for an event loop.
public final class Store: Sendable {
    public let directory: StateDirectory
    let pool: DatabasePool
    /// Changes whenever a transaction commits, in this process or another (see `commitCount`).
    let commits: CommitCounter
    /// Checkpoints the WAL off the writer's queue; nil in a store opened for in-place imports, whose writer
    /// checkpoints as SQLite does (a second connection, even for a moment, would keep the next large import
    /// from being written in place).
    let checkpointer: WALCheckpointer?
    /// Bumped whenever this process revokes a token, so that caches of verified tokens drop at once.
    let tokenRevocations = Atomic<Int>(0)

    /// Encodes each entry's timeline JSON as it is imported; nil in a store opened only to read or to
    /// manage keys and tokens (an import then fails with `.noEntryEncoder`).
    let entryEncoder: (any EntryEncoder)?

    public struct Options: Sendable {
        public var maximumReaders: Int = 4
        public var connection = Database.Configuration()
        /// The timeline's entry encoder (TimelineAPI's); every process that imports must give it.
        public var entryEncoder: (any EntryEncoder)?
        /// For a process that has the store to itself while it imports (the command line's `import-file`
        /// and `reimport`): a record of `largeImportEntries` entries or more, or one read as a stream, is
        /// written in place through a rollback journal when no other connection is open to the store
        /// (`Database.withRollbackJournalIfAlone`). Never for the daemon: a reader would wait on such a
        /// write, where in WAL it never waits. Such a store's writer also checkpoints the WAL itself, as
        /// SQLite does, where any other's leaves it to a thread of its own (`WALCheckpointer`).
        public var largeImportsInPlace = false
        /// Told why a checkpoint of the WAL failed (`WALCheckpointer`): nothing is lost, but the WAL grows
        /// until one succeeds, which the person running the daemon should hear of.
        public var onCheckpointFailure: (@Sendable (String) -> Void)?
        /// Told, as it begins, of each step that upgrades a store as it opens (a schema migration, every
        /// entry's timeline JSON encoded again): once after an upgrade of hreaderd, and for a long record a
        /// step can take a while (building an index over a million entries: about 14 s), which the person
        /// starting the daemon should not have to guess at.
        public var onUpgrade: (@Sendable (String) -> Void)?
        public init(entryEncoder: (any EntryEncoder)? = nil, largeImportsInPlace: Bool = false) {
            self.entryEncoder = entryEncoder
            self.largeImportsInPlace = largeImportsInPlace
        }
    }

    /// The entries from which a record is a large import (`Options.largeImportsInPlace`): below it, leaving
    /// WAL and turning it on again (a checkpoint, the header written twice) costs about what the WAL does.
    public static let largeImportEntries = 10_000

    let largeImportsInPlace: Bool

    /// Opens another database file with the store's key (a backup's copy), without the key leaving the
    /// closure that holds it, as the pool's readers are opened.
    let openWithStoreKey: @Sendable (String) throws -> Database

    private init(directory: StateDirectory, pool: DatabasePool, commits: CommitCounter, checkpointer: WALCheckpointer?,
                 entryEncoder: (any EntryEncoder)?, largeImportsInPlace: Bool,
                 openWithStoreKey: @escaping @Sendable (String) throws -> Database) {
        self.directory = directory
        self.checkpointer = checkpointer
        self.largeImportsInPlace = largeImportsInPlace
        self.pool = pool
        self.commits = commits
        self.entryEncoder = entryEncoder
        self.openWithStoreKey = openWithStoreKey
    }

    deinit { close() }

    /// Creates a new store: the state directory (0700), the key file (key wrapped under the password and
    /// a recovery key) and the encrypted database with the current schema. Refuses to overwrite anything.
    /// Returns the open store and the recovery key, to be shown once.
    public static func create(
        at directory: StateDirectory,
        password: String,
        passwordParameters: ScryptParameters = .password,
        recoveryParameters: ScryptParameters = .recoveryKey,
        options: Options = .init()
    ) throws(StoreError) -> (store: Store, recoveryKey: RecoveryKey) {
        guard !password.isEmpty else { throw .keyVault(.emptyPassword) }
        try directory.createForNewStore()
        let key = try StoreError.wrapping { try StoreKey.random() }
        // Build the database under a temporary name; only a complete, migrated database gets its real name,
        // after the key file that opens it exists.
        let building = directory.databasePath + ".init"
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(building + suffix) }
        try StoreError.wrapping {
            let db = try Migrator.migrate(opening: { try Database(path: building, key: key, mode: .readWriteCreate, configuration: options.connection) })
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let recovery: RecoveryKey
        do {
            recovery = try directory.keyVault.create(key: key, password: password,
                                                     passwordParameters: passwordParameters, recoveryParameters: recoveryParameters)
        } catch {
            for suffix in ["", "-wal", "-shm"] { unlink(building + suffix) }
            throw error
        }
        for suffix in ["-wal", "-shm"] { unlink(building + suffix) }
        // SQLite creates files 0644 unless the umask says otherwise; the database is nobody else's business.
        chmod(building, 0o600)
        guard rename(building, directory.databasePath) == 0 else {
            throw .io("cannot move the new database into place: \(String(cString: strerror(errno)))")
        }
        do { try FileSystem.syncDirectory(containing: directory.databasePath) } catch { throw .io(error.description) }
        let store = try open(at: directory, key: key, options: options)
        return (store, recovery)
    }

    /// Opens an existing store with the key (from `KeyVault.unlock`). Runs pending migrations.
    public static func open(at directory: StateDirectory, key: StoreKey, options: Options = .init()) throws(StoreError) -> Store {
        try directory.checkExists()
        let path = directory.databasePath
        guard FileSystem.exists(path) else { throw .databaseMissing(path: path) }
        var writer: Database
        do {
            writer = try Database(path: path, key: key, mode: .readWrite, configuration: options.connection)
        } catch {
            if error.isNotADatabase { throw .keyDoesNotMatchDatabase(path: path) }
            throw .database(error)
        }
        let first = writer
        writer = try StoreError.wrapping {
            // The first connection migrates; a migration that rewrote the schema's text needs a new one.
            var opened = 0
            let migrated = try Migrator.migrate(opening: {
                opened += 1
                return opened == 1 ? first : try Database(path: path, key: key, mode: .readWrite, configuration: options.connection)
            }, announce: options.onUpgrade)
            if let encoder = options.entryEncoder { try EntryJSONRefresh.run(encoder, in: migrated, announce: options.onUpgrade) }
            return migrated
        }
        let configuration = options.connection
        let commits = CommitCounter(database: writer)
        var checkpointer: WALCheckpointer?
        if !options.largeImportsInPlace {
            let background = WALCheckpointer(onFailure: options.onCheckpointFailure) {
                // Its page cache is not used: a checkpoint copies the WAL's pages as they are.
                var small = configuration
                small.cacheSizeKiB = WALCheckpointer.connectionCacheKiB
                return try Database(path: path, key: key, mode: .readWrite, configuration: small)
            }
            writer.onWALCommit { pages in background.committed(walPages: pages) }
            checkpointer = background
        }
        let pool = DatabasePool(writer: writer, maximumReaders: max(1, options.maximumReaders)) {
            let reader = try Database(path: path, key: key, mode: .readWrite, configuration: configuration)
            try reader.execute("PRAGMA query_only = ON")
            return reader
        }
        return Store(directory: directory, pool: pool, commits: commits, checkpointer: checkpointer, entryEncoder: options.entryEncoder,
                     largeImportsInPlace: options.largeImportsInPlace) { other in
            try Database(path: other, key: key, mode: .readWriteCreate, configuration: configuration)
        }
    }

    /// Unlocks with the password from the key file and opens the store.
    public static func open(at directory: StateDirectory, password: String, options: Options = .init()) throws(StoreError) -> Store {
        try directory.checkExists()
        let key = try directory.keyVault.unlock(password: password)
        return try open(at: directory, key: key, options: options)
    }

    /// Closes every connection and drops the key from memory. Later calls fail with `StoreError.closed`.
    public func close() {
        commits.close()  // before the connections that keep its memory mapped
        checkpointer?.close()  // a running checkpoint ends first
        pool.close()
    }

    /// A number that changes whenever a write transaction commits to the store, from this process or any
    /// other (`hreaderd sync` beside a serving daemon). Memory only: it never blocks. nil when unknown.
    /// Read it before the data that a cache keys by it.
    public var commitCount: UInt32? { commits.value }

    // MARK: - Raw access, for the store's own queries and for tests and benchmarks

    /// Runs `body` on the writer connection inside one transaction: commits on return, rolls back on throw.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        try await write(largeImport: false, body)
    }

    package func writeSync<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        try writeSync(largeImport: false, body)
    }

    /// `largeImport`: the transaction is a large import, written in place through a rollback journal when the
    /// store was opened for it (`Options.largeImportsInPlace`) and the writer is the only connection open.
    func write<T: Sendable>(largeImport: Bool, _ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        let inPlace = largeImport && largeImportsInPlace
        do { return try await pool.write { db in try Self.transaction(on: db, inPlace: inPlace, body) } }
        catch { throw StoreError.wrap(error) }
    }

    func writeSync<T>(largeImport: Bool, _ body: (Database) throws -> T) throws(StoreError) -> T {
        let inPlace = largeImport && largeImportsInPlace
        do { return try pool.writeSync { db in try Self.transaction(on: db, inPlace: inPlace, body) } }
        catch { throw StoreError.wrap(error) }
    }

    /// One write transaction on the writer, the search index brought up to date in it; `inPlace`: through a
    /// rollback journal if the writer is alone (`Database.withRollbackJournalIfAlone`).
    private static func transaction<T>(on db: Database, inPlace: Bool, _ body: (Database) throws -> T) throws -> T {
        guard inPlace else { return try db.transaction { db in try searchIndexed(db, body) } }
        return try db.withRollbackJournalIfAlone { _ in try db.transaction { db in try searchIndexed(db, body) } }
    }

    /// Runs a write, then brings the search index up to date with it, in the same transaction.
    private static func searchIndexed<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        let result = try body(db)
        try SearchIndex.apply(in: db)
        return result
    }

    /// Runs `body` on a reader connection, in one consistent snapshot.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        do { return try await pool.read(body) }
        catch { throw StoreError.wrap(error) }
    }

    package func readSync<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do { return try pool.readSync(body) }
        catch { throw StoreError.wrap(error) }
    }

    /// Runs `body` in one snapshot on the reader kept for long reads in many parts (see `DatabasePool`).
    func readInBulk<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        do { return try await pool.readInBulk(body) }
        catch { throw StoreError.wrap(error) }
    }
}

extension StoreError {
    static func wrap(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError: return error
        case let error as DatabaseError: return .database(error)
        case let error as KeyVaultError: return .keyVault(error)
        default: return .io(String(describing: error))
        }
    }
}
