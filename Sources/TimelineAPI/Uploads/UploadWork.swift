import HTTPKit
import ImportJobs
import Logging
import NIOPosix
import ServiceLifecycle
import Store
import Synchronization

/// The owner of the uploads' work (`POST /imports/files`): the threads that read and map an uploaded file,
/// and the import jobs that write it, each known until it ends.
///
/// An upload is read and mapped on a thread of this owner's pool, never on the Swift concurrency pool (a
/// 64 MiB file is seconds of parsing, and the pool has as many threads as cores: on two, one upload would
/// hold half of what answers every request). The import that follows runs as a job this owner tracks; the
/// heavy parts of it run on threads of their own too (`FileImporter`: the deflate of the kept file, the
/// mapping of a long record) or on the store's writer.
///
/// As a `Service`, it runs until the daemon shuts down; it then takes no new upload (`503`), waits for the
/// running jobs up to `shutdownGrace`, and stops those still running: a job stopped so ends as a crash
/// leaves one, `failed` with the reason, each patient whole or not written, and nothing of the file kept
/// when no patient was written. Without a service group (tests), uploads work the same; nothing stops them.
public final class UploadWork: Service {
    public struct Settings: Sendable {
        /// Threads that read and map uploads, one upload at a time each; more wait their turn.
        public var parsingThreads = 1
        /// How long a shutdown waits for running upload jobs before it stops them.
        public var shutdownGrace: Duration = .seconds(10)
        public init() {}
    }

    /// Said when the daemon is stopping: no new upload is taken.
    static let stopping = HTTPError(.serviceUnavailable, code: "stopping",
                                    message: "The daemon is stopping; upload the file again once it is back.")

    private struct State {
        /// Started at the first upload, stopped at shutdown.
        var pool: NIOThreadPool?
        var jobs: [Int64: Task<Void, Never>] = [:]
        var stopping = false
    }

    public let settings: Settings
    private let state = Mutex(State())
    private let logger: Logger

    public init(settings: Settings = Settings(), logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    deinit {
        // A pool never stopped by `run` (no service group): its threads end with it.
        state.withLock { $0.pool }?.shutdownGracefully { _ in }
    }

    /// The upload jobs running now.
    public var runningJobs: Int { state.withLock { $0.jobs.count } }

    /// Reads and maps an uploaded file on a parsing thread; the calling task waits without holding a thread.
    /// Throws `503` once the daemon is stopping.
    func plan(_ body: ByteBuffer, name: String, mediaType: String, options: ImportOptions,
              importer: FileImporter) async throws -> FileImporter.Plan {
        let pool = try state.withLock { state throws(HTTPError) -> NIOThreadPool in
            guard !state.stopping else { throw Self.stopping }
            if let pool = state.pool { return pool }
            let pool = NIOThreadPool(numberOfThreads: max(1, settings.parsingThreads))
            pool.start()
            state.pool = pool
            return pool
        }
        do {
            return try await pool.runIfActive {
                let file = ImportInputFile(name: name, mediaType: mediaType, bytes: Array(body.readableBytesView))
                return importer.plan([file], options: options)
            }
        } catch is NIOThreadPoolError.ThreadPoolInactive {
            throw Self.stopping
        }
    }

    /// Runs `work`, the import job `jobID`, as a job this owner knows until it ends; false (and nothing runs)
    /// once the daemon is stopping. `work` sees `Task.isCancelled` when a shutdown stops it.
    func start(jobID: Int64, _ work: @escaping @Sendable () async -> Void) -> Bool {
        state.withLock { state in
            guard !state.stopping else { return false }
            // Made under the lock: the task's own removal, which takes it, comes after this insertion.
            state.jobs[jobID] = Task {
                await work()
                self.finished(jobID)
            }
            return true
        }
    }

    private func finished(_ jobID: Int64) {
        _ = state.withLock { $0.jobs.removeValue(forKey: jobID) }
    }

    /// Until the daemon shuts down; then no new upload is taken, the running jobs have `shutdownGrace` to
    /// finish, those left are stopped, and their ends are awaited.
    public func run() async {
        try? await gracefulShutdown()
        let running = state.withLock { state in
            state.stopping = true
            return Array(state.jobs.values)
        }
        if !running.isEmpty {
            logger.info("waiting up to \(settings.shutdownGrace) for \(running.count) upload\(running.count == 1 ? "" : "s") being imported")
            let grace = settings.shutdownGrace
            let logger = self.logger
            await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    for job in running { await job.value }
                    return true
                }
                group.addTask {
                    try? await Task.sleep(for: grace)
                    return false
                }
                if await group.next() != true {
                    logger.notice("stopping \(running.count) upload import\(running.count == 1 ? "" : "s"); what it had not written is not kept")
                    for job in running { job.cancel() }
                }
                group.cancelAll()
            }
        }
        let pool = state.withLock { state in
            defer { state.pool = nil }
            return state.pool
        }
        try? await pool?.shutdownGracefully()
    }
}
