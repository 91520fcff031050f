import HealthRecord
import Store

/// What a runner reports as it works: for the daemon's log and `hreaderd sync`'s progress lines.
public enum JobEvent: Sendable {
    case started(ImportJob)
    /// Patients handled so far (imported, not modified or failed) of those in the feed.
    case progress(jobID: Int64, source: String, done: Int, total: Int?)
    case finished(ImportJob)
    /// Something kept the runner from its work for now (a busy or failing store); it tries again.
    case problem(String)
}

/// Runs import jobs from the store.
///
/// In the daemon (`start()`), it queues the periodic sync of each source, claims jobs as they come due
/// (at most `maxConcurrentJobs` at once, each under a lease renewed by its heartbeat), and records how
/// each run ended: done, failed, needs sign-in, or queued again after a backoff. While the store is
/// locked (`store()` gives nil) it waits; a job cut short by a lock or a shutdown goes back to the queue.
/// A job that a dead process held is taken over at once when that process was on this host, else when
/// its lease lapses. `hreaderd sync` uses `runJobs(_:waitForOthers:)` instead: the same work, in the
/// foreground, for given jobs only.
///
/// One `URLSession` serves all the runner's requests; `stop()` releases it.
public actor JobRunner {
    public nonisolated let owner: String
    public nonisolated let configuration: SyncConfiguration
    private let storeProvider: @Sendable () -> Store?
    /// Who syncs each kind of source.
    private let syncers: [Source.Kind: any SourceSyncer]
    private let onEvent: @Sendable (JobEvent) -> Void
    private let now: @Sendable () -> Int64
    private let fetcher: HTTPFetcher
    private let limiter: DownloadLimiter
    private var active: [Int64: Task<Void, Never>] = [:]
    private var loop: Task<Void, Never>?
    private var stopped = false

    /// - Parameters:
    ///   - store: the open store, or nil while it is locked.
    ///   - onEvent: called from the runner's tasks; keep it quick.
    ///   - syncers: who syncs each kind of source (`RHExSyncer()` for `.rhex`).
    public init(configuration: SyncConfiguration = SyncConfiguration(), syncers: [Source.Kind: any SourceSyncer],
                store: @escaping @Sendable () -> Store?,
                now: @escaping @Sendable () -> Int64 = { Store.now() }, onEvent: @escaping @Sendable (JobEvent) -> Void = { _ in }) {
        self.owner = JobOwner.make()
        self.configuration = configuration
        self.storeProvider = store
        self.syncers = syncers
        self.now = now
        self.onEvent = onEvent
        self.fetcher = HTTPFetcher(timeoutSeconds: configuration.requestTimeoutSeconds,
                                   maxConnectionsPerHost: max(1, configuration.maxConcurrentDownloads) + 1)
        self.limiter = DownloadLimiter(slots: configuration.maxConcurrentDownloads)
    }

    /// The most record downloads that were ever in flight at once.
    public nonisolated var mostConcurrentDownloads: Int { limiter.mostHolders }

    /// Starts the background work: the schedule and the queue. Until `stop()`.
    public func start() {
        guard loop == nil, !stopped else { return }
        loop = Task { await self.runLoop() }
    }

    /// Stops: running jobs are cut short and queued again (to resume at the next start), the session is
    /// released. Returns when all of it is done.
    public func stop() async {
        stopped = true
        loop?.cancel()
        await loop?.value
        let running = Array(active.values)
        for task in running { task.cancel() }
        for task in running { await task.value }
        fetcher.close()
    }

    // MARK: - The daemon's loop

    /// How often the daemon's loop looks for sources whose periodic sync is due.
    static let scheduleCheckSeconds: Int64 = 30

    private func runLoop() async {
        var nextScheduleCheck = Int64.min
        while !Task.isCancelled {
            let generation = Wakeup.jobs.generation
            if let store = storeProvider() {
                do throws(StoreError) {
                    if configuration.syncIntervalSeconds > 0, now() >= nextScheduleCheck {
                        _ = try await store.enqueueDueImports(defaultIntervalSeconds: configuration.syncIntervalSeconds, now: now())
                        nextScheduleCheck = now() + min(Self.scheduleCheckSeconds, configuration.syncIntervalSeconds)
                    }
                    try await claimAndStart(store, only: nil)
                } catch {
                    if case .closed = error {} else { onEvent(.problem("the import queue cannot be read: \(error)")) }
                }
            }
            await Wakeup.jobs.wait(since: generation, upTo: configuration.pollSeconds)
        }
    }

    // MARK: - In the foreground (`hreaderd sync`)

    /// Runs the jobs `ids` in this process and returns them as they ended. Each is attempted once
    /// (a job that is to be retried later stays queued, one that another process runs is left to it);
    /// with `waitForOthers`, until every one is over: retries run here after their backoff, and a job
    /// another process runs is waited for.
    public func runJobs(_ ids: [Int64], waitForOthers: Bool) async throws(StoreError) -> [ImportJob] {
        var attempted = Set<Int64>()
        while true {
            guard let store = storeProvider() else { throw .closed }
            let generation = Wakeup.jobs.generation
            let jobs = try await store.importJobs(ids: ids)
            let open = jobs.filter { !$0.state.isFinal }
            if open.isEmpty && active.isEmpty { return jobs }
            if Task.isCancelled {
                await stopActive()
                return try await store.importJobs(ids: ids)
            }
            let candidates = open.map(\.id).filter { waitForOthers || !attempted.contains($0) }
            let started = try await claimAndStart(store, only: candidates)
            attempted.formUnion(started.map(\.id))
            if active.isEmpty {
                if !waitForOthers { return try await store.importJobs(ids: ids) }
                // Another process runs it, or a retry waits out its backoff.
                let wake = open.compactMap(\.nextRunAt).min().map { Double($0 - now()) } ?? configuration.pollSeconds
                await Wakeup.jobs.wait(since: generation, upTo: max(0.05, min(configuration.pollSeconds, wake)))
            } else {
                await Wakeup.jobs.wait(since: generation, upTo: configuration.pollSeconds)
            }
        }
    }

    private func stopActive() async {
        let running = Array(active.values)
        for task in running { task.cancel() }
        for task in running { await task.value }
    }

    // MARK: - Claiming and finishing

    @discardableResult
    private func claimAndStart(_ store: Store, only: [Int64]?) async throws(StoreError) -> [ImportJob] {
        var started: [ImportJob] = []
        while active.count < max(1, configuration.maxConcurrentJobs), !stopped {
            let owners = try await store.runningImportJobOwners()
            let me = owner
            let reclaimable = owners.filter { $0 == me || JobOwner.isDeadProcessOnThisHost($0) }
            guard let job = try await store.claimImportJob(owner: owner, leaseSeconds: configuration.leaseSeconds,
                                                           reclaimableOwners: reclaimable, excluding: Array(active.keys),
                                                           only: only, now: now())
            else { break }
            launch(job, store: store)
            started.append(job)
        }
        return started
    }

    private func launch(_ job: ImportJob, store: Store) {
        onEvent(.started(job))
        let progress = RunProgress()
        let onEvent = onEvent
        let run = JobRun(job: job, owner: owner, store: store, fetcher: fetcher, limiter: limiter, configuration: configuration,
                         progress: progress, now: now) { done, total in
            onEvent(.progress(jobID: job.id, source: job.sourceName, done: done, total: total))
        }
        let syncer = syncers[job.sourceKind]
        active[job.id] = Task {
            let outcome: SyncOutcome
            if let syncer {
                outcome = await run.run(syncer)
            } else {
                outcome = .failed("this daemon cannot sync a source of kind \(job.sourceKind.rawValue)")
            }
            await self.finish(job, outcome: outcome, progress: progress, store: store)
        }
    }

    private func finish(_ job: ImportJob, outcome: SyncOutcome, progress: RunProgress, store: Store) async {
        let (done, total, counts) = progress.snapshot
        let end: Store.JobEnd?
        switch outcome {
        case .done:
            end = .done
        case .failed(let reason):
            end = .failed(reason: reason)
        case .needsSignIn(let reason):
            end = .needsSignIn(reason: reason)
        case .retry(let reason):
            if job.attempts < configuration.jobRetry.attempts {
                let delay = configuration.jobRetry.delay(after: job.attempts)
                end = .retry(reason: reason, at: now() + Int64(delay.rounded(.up)))
            } else {
                end = .failed(reason: "gave up after \(job.attempts) attempt\(job.attempts == 1 ? "" : "s"): \(reason)")
            }
        case .stopped:
            end = .release
        case .leaseLost:
            end = nil
        }
        if let end {
            do {
                try await store.finishImportJob(id: job.id, owner: owner, end: end, progressDone: done, progressTotal: total,
                                                counts: counts, now: now())
            } catch {
                if case .closed = error {} else { onEvent(.problem("the end of import job \(job.id) could not be recorded: \(error)")) }
            }
            // The audit trail: a sync's end (an upload's import was noted when it was uploaded); ids and counts only.
            if job.sourceKind != .file {
                let result: String = switch end {
                case .done: "done, \(done) patients"
                case .failed: "failed"
                case .needsSignIn: "needs sign-in"
                case .retry: "will retry"
                case .release: "stopped"
                }
                try? await store.recordAudit(AuditEvent(at: now(), action: .sync, actor: "source \(job.sourceName)", detail: "job \(job.id) \(result)"))
            }
        }
        var ended = job
        if let stored = try? await store.importJob(id: job.id) {
            ended = stored
        } else {
            ended.progressDone = done
            ended.progressTotal = total
            ended.counts = counts
        }
        onEvent(.finished(ended))
        active[job.id] = nil
        Wakeup.jobs.signal()
        // What the sync's records took, freed now, goes back to the system (on a thread that may wait for it).
        DetachedThread.start(named: "memory-giveback") { FreedMemory.giveBack() }
    }
}
