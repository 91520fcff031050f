import HealthRecord
import Dispatch
import FoundationEssentials
import Synchronization

/// One writer connection and a pool of reader connections on the same WAL database.
///
/// SQLite allows one writer at a time; WAL lets readers proceed without waiting for it. The writer is owned
/// by one serial queue; each reader connection is used by one thread at a time, handed out from a free list.
/// All blocking SQLite work runs on Dispatch threads, never on a NIO event loop or the Swift concurrency
/// pool's cooperative threads.
final class DatabasePool: Sendable {
    private let writerQueue = DispatchQueue(label: "hreaderd.store.writer")
    /// Reads run here. A queue of our own, not `DispatchQueue.global()`: on Linux the global queue runs
    /// only as many threads as there are cores, and blocking SQLite reads would starve everything else on it.
    private let readerQueue = DispatchQueue(label: "hreaderd.store.readers", attributes: .concurrent)
    private let writerBox: UnsafeDatabaseBox
    private let readerSlots: DispatchSemaphore
    private let freeReaders: Mutex<[UnsafeDatabaseBox]>
    private let openReader: @Sendable () throws -> Database
    private let closed = Atomic<Bool>(false)
    /// Readers apart for long reads in many parts (a long record's page written as it is read), with a small
    /// page cache each: such reads go through the whole record and would otherwise fill every reader's cache
    /// with pages read once. Parts of several such reads share them.
    private let bulkQueue = DispatchQueue(label: "hreaderd.store.bulk-readers", attributes: .concurrent)
    private let bulkSlots = DispatchSemaphore(value: DatabasePool.bulkReaders)
    private let freeBulkReaders = Mutex<[UnsafeDatabaseBox]>([])

    /// How many bulk readers there are (opened when first needed): two, so that a page's vital signs are read
    /// beside its entry arrays, or two clients' pages side by side, on a machine of two cores.
    static let bulkReaders = 2

    /// Each bulk reader's page cache, in KiB.
    static let bulkReaderCacheKiB = 2 * 1024

    init(writer: Database, maximumReaders: Int, openReader: @escaping @Sendable () throws -> Database) {
        writerBox = UnsafeDatabaseBox(writer)
        readerSlots = DispatchSemaphore(value: maximumReaders)
        freeReaders = Mutex([])
        self.openReader = openReader
    }

    // MARK: writing

    func writeSync<T>(_ body: (Database) throws -> T) throws -> T {
        try writerQueue.sync {
            guard !closed.load(ordering: .acquiring), let db = writerBox.database else { throw StoreError.closed }
            return try body(db)
        }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            writerQueue.async { [self] in
                continuation.resume(with: Result { () throws -> T in
                    guard !closed.load(ordering: .acquiring), let db = writerBox.database else { throw StoreError.closed }
                    return try body(db)
                })
            }
        }
    }

    // MARK: reading

    func readSync<T>(_ body: (Database) throws -> T) throws -> T {
        guard !closed.load(ordering: .acquiring) else { throw StoreError.closed }
        readerSlots.wait()
        defer { readerSlots.signal() }
        let box = try freeReaders.withLock { $0.popLast() } ?? UnsafeDatabaseBox(openReader())
        defer { if !closed.load(ordering: .acquiring) { freeReaders.withLock { $0.append(box) } } }
        guard let db = box.database else { throw StoreError.closed }
        // A read sees one consistent snapshot: wrap it in a transaction.
        return try db.transaction(.deferred) { try body($0) }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            readerQueue.async { [self] in
                continuation.resume(with: Result { try readSync(body) })
            }
        }
    }

    /// Runs `body` in one snapshot on a bulk reader (opened when first needed).
    func readInBulk<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            bulkQueue.async { [self] in
                continuation.resume(with: Result { () throws -> T in
                    guard !closed.load(ordering: .acquiring) else { throw StoreError.closed }
                    bulkSlots.wait()
                    defer { bulkSlots.signal() }
                    // The pool may have closed while this part waited for a reader.
                    guard !closed.load(ordering: .acquiring) else { throw StoreError.closed }
                    let box = try freeBulkReaders.withLock { $0.popLast() } ?? UnsafeDatabaseBox(openBulkReader())
                    defer { if !closed.load(ordering: .acquiring) { freeBulkReaders.withLock { $0.append(box) } } }
                    guard let db = box.database else { throw StoreError.closed }
                    return try db.transaction(.deferred) { try body($0) }
                })
            }
        }
    }

    private func openBulkReader() throws -> Database {
        let db = try openReader()
        try db.execute("PRAGMA cache_size = -\(Self.bulkReaderCacheKiB)")
        return db
    }

    /// Closes every connection; later calls fail with `StoreError.closed`. Waits for running work.
    func close() {
        closed.store(true, ordering: .releasing)
        writerQueue.sync { writerBox.database = nil }
        bulkQueue.sync(flags: .barrier) {}
        freeBulkReaders.withLock { readers in
            for box in readers { box.database = nil }
            readers.removeAll()
        }
        freeReaders.withLock { readers in
            for box in readers { box.database = nil }
            readers.removeAll()
        }
    }
}

/// A connection handed between threads, one at a time, by `DatabasePool`. The pool's queue and free list
/// are what guarantee exclusive use, which is why this box may be marked Sendable.
final class UnsafeDatabaseBox: @unchecked Sendable {
    var database: Database?
    init(_ database: Database?) { self.database = database }
}
