import HealthRecord
import Store

/// A kind of source the job runner can sync: RHEx servers today, FHIR servers next. The runner claims
/// a job, renews its lease and records how it ended; the syncer does the source's own work in between.
public protocol SourceSyncer: Sendable {
    /// Syncs the job's source. Errors end the run as `SyncOutcome.of(_:)` says.
    func sync(_ run: JobRun) async throws(SyncError) -> SyncOutcome
}

/// Everything one run of one job may use: the store, the runner's shared HTTP session and download
/// slots, its configuration, and the run's progress.
public struct JobRun: Sendable {
    public let job: ImportJob
    /// The lease holder: imports write only while it still holds the job.
    public let owner: String
    public let store: Store
    public let fetcher: HTTPFetcher
    public let limiter: DownloadLimiter
    public let configuration: SyncConfiguration
    public let progress: RunProgress
    public let now: @Sendable () -> Int64
    /// Patients handled and the total, as they change.
    public let onProgress: @Sendable (Int, Int?) -> Void
}

extension JobRun {
    /// The job's source with its secrets and tokens, as the store holds them now; `leaseLost` when the
    /// source was removed meanwhile.
    public func sourceAndCredentials() async throws(SyncError) -> (source: Source, credentials: (secrets: SourceSecrets, tokens: SourceTokens)) {
        let source: Source?
        let credentials: (secrets: SourceSecrets, tokens: SourceTokens)?
        do {
            source = try await store.source(id: job.sourceID)
            credentials = try await store.sourceCredentials(id: job.sourceID)
        } catch {
            throw SyncError.from(error)
        }
        guard let source, let credentials else { throw .leaseLost }
        return (source, credentials)
    }
}

extension SyncOutcome {
    /// How a run that threw `error` ends.
    public static func of(_ error: SyncError) -> SyncOutcome {
        switch error {
        case .needsSignIn(let reason): return .needsSignIn(reason)
        case .leaseLost: return .leaseLost
        case .stopped: return .stopped
        default: return error.isTransient ? .retry(error.description) : .failed(error.description)
        }
    }
}

extension JobRun {
    /// Runs `syncer` beside a heartbeat that renews the lease and writes progress; the first of them
    /// to end decides the outcome (a lost lease stops the work).
    func run(_ syncer: any SourceSyncer) async -> SyncOutcome {
        await withTaskGroup(of: SyncOutcome?.self) { group in
            group.addTask { await work(syncer) }
            group.addTask { await heartbeat() }
            var outcome = SyncOutcome.stopped
            while let next = await group.next() {
                if let next {
                    outcome = next
                    break
                }
            }
            group.cancelAll()
            return outcome
        }
    }

    private func work(_ syncer: any SourceSyncer) async -> SyncOutcome {
        do throws(SyncError) {
            return try await syncer.sync(self)
        } catch {
            return SyncOutcome.of(error)
        }
    }

    /// Renews the lease and writes progress until cancelled; returns only when the lease is lost or the
    /// store is gone.
    private func heartbeat() async -> SyncOutcome? {
        while true {
            do { try await Task.sleep(for: .seconds(configuration.heartbeatSeconds)) } catch { return nil }
            let (done, total, counts) = progress.snapshot
            do {
                let held = try await store.heartbeatImportJob(id: job.id, owner: owner, progressDone: done, progressTotal: total,
                                                              counts: counts, now: now())
                if !held { return .leaseLost }
            } catch .closed {
                return .stopped
            } catch {
                // A busy or failing store: the next heartbeat tries again, well within the lease.
                continue
            }
        }
    }
}
