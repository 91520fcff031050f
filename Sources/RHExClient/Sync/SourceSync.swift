import Foundation
import Store
import Synchronization

/// How one run of a job ended.
enum SyncOutcome: Sendable, Equatable {
    case done
    /// Over, for a reason that a retry soon would not fix.
    case failed(String)
    case needsSignIn(String)
    /// Worth another run after a backoff (network trouble, time-outs, `5xx` that the request's own
    /// retries did not get past).
    case retry(String)
    /// The store was locked or the process is stopping: the job goes back to the queue.
    case stopped
    /// Another process holds the job now (or it was removed): leave it alone.
    case leaseLost
}

/// The progress of a run, shared by its downloads and its heartbeat.
final class RunProgress: Sendable {
    private struct State {
        var total: Int?
        var done = 0
        var counts = ImportCounts()
        /// Failures by kind: transient ones make the job worth a retry.
        var transientFailures = 0
        var firstFailure: String?
    }

    private let state = Mutex(State())

    var snapshot: (done: Int, total: Int?, counts: ImportCounts) {
        state.withLock { ($0.done, $0.total, $0.counts) }
    }

    var failures: (transient: Int, first: String?) {
        state.withLock { ($0.transientFailures, $0.firstFailure) }
    }

    func setTotal(_ total: Int) { state.withLock { $0.total = total } }

    /// Counts one more patient handled; returns the new count (written with that patient's import).
    func advance() -> Int {
        state.withLock { state -> Int in
            state.done += 1
            return state.done
        }
    }

    func record(_ summary: ImportSummary) { state.withLock { $0.counts.add(summary) } }
    func recordNotModified() { state.withLock { $0.counts.patientsNotModified += 1 } }

    func recordFailure(_ error: SyncError) {
        state.withLock { state in
            state.counts.patientsFailed += 1
            if error.isTransient { state.transientFailures += 1 }
            if state.firstFailure == nil { state.firstFailure = error.description }
        }
    }
}

/// One run of one import job: sign in, read the feed, download each patient's record (a bounded number
/// at once, conditional on its ETag) and import it in its own transaction, renewing the job's lease as
/// it goes. A patient whose download or parse fails is left exactly as it was.
struct SourceSync: Sendable {
    let job: ImportJob
    let owner: String
    let store: Store
    let fetcher: HTTPFetcher
    let limiter: DownloadLimiter
    let configuration: SyncConfiguration
    let progress: RunProgress
    let now: @Sendable () -> Int64
    let onProgress: @Sendable (Int, Int?) -> Void

    func run() async -> SyncOutcome {
        await withTaskGroup(of: SyncOutcome?.self) { group in
            group.addTask { await work() }
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

    private func work() async -> SyncOutcome {
        do throws(SyncError) {
            return try await sync()
        } catch {
            return Self.outcome(of: error)
        }
    }

    static func outcome(of error: SyncError) -> SyncOutcome {
        switch error {
        case .needsSignIn(let reason): return .needsSignIn(reason)
        case .leaseLost: return .leaseLost
        case .stopped: return .stopped
        default: return error.isTransient ? .retry(error.description) : .failed(error.description)
        }
    }

    private func sync() async throws(SyncError) -> SyncOutcome {
        let source: Source
        let credentials: (secrets: SourceSecrets, tokens: SourceTokens)
        do {
            guard let found = try await store.source(id: job.sourceID), let secrets = try await store.sourceCredentials(id: job.sourceID) else {
                throw SyncError.leaseLost
            }
            source = found
            credentials = secrets
        } catch let error as SyncError {
            throw error
        } catch let error as StoreError {
            throw SyncError.from(error)
        } catch {
            throw SyncError.store("\(error)")
        }
        guard source.kind == .rhex, let url = source.url else { throw .configuration("the source \(source.name) has no server URL") }
        let endpoints = try RHExEndpoints(url: url)
        let oauth = OAuthClient(tokenURL: endpoints.token, clientID: source.settings.clientID, clientSecret: credentials.secrets.clientSecret,
                                fetcher: fetcher, limit: configuration.limits.tokenBytes)
        let keeper = TokenKeeper(sourceID: source.id, store: store, oauth: oauth, settings: source.settings, secrets: credentials.secrets,
                                 tokens: credentials.tokens, refreshMarginSeconds: configuration.refreshMarginSeconds, now: now)
        let api = RHExAPI(keeper: keeper, fetcher: fetcher, retry: configuration.requestRetry)

        let feedAnswer = try await api.get(endpoints.feed, accept: "application/atom+xml, application/xml;q=0.9",
                                           limit: configuration.limits.feedBytes)
        guard feedAnswer.status == 200 else { throw .status(url: HTTPFetcher.display(endpoints.feed), code: feedAnswer.status) }
        let feed = try PatientFeed.parse(feedAnswer.body, url: endpoints.feed)
        progress.setTotal(feed.entries.count)
        onProgress(0, feed.entries.count)

        let etags: [String: String]
        do { etags = try await store.recordETags(sourceID: source.id) } catch { throw SyncError.from(error) }
        let downloader = RecordDownloader(api: api, endpoints: endpoints, limit: configuration.limits.recordBytes)
        let parser = RecordParser(limits: configuration.parseLimits)

        // A bounded window of patients at once; the limiter bounds downloads over all jobs of the runner.
        let window = max(1, configuration.maxConcurrentDownloads)
        let stop: SyncOutcome? = await withTaskGroup(of: SyncOutcome?.self) { group in
            var pending = feed.entries.makeIterator()
            for _ in 0..<window {
                guard let entry = pending.next() else { break }
                group.addTask {
                    await patient(entry.recordID, etag: etags[entry.recordID], source: source, downloader: downloader, parser: parser)
                }
            }
            while let result = await group.next() {
                if let result {
                    group.cancelAll()
                    return result
                }
                if let entry = pending.next() {
                    group.addTask {
                        await patient(entry.recordID, etag: etags[entry.recordID], source: source, downloader: downloader, parser: parser)
                    }
                }
            }
            return nil
        }
        if let stop { return stop }

        let (done, total, counts) = progress.snapshot
        onProgress(done, total)
        let failures = progress.failures
        if counts.patientsFailed > 0 {
            let total = total ?? done
            let reason = "\(counts.patientsFailed) of \(total) patients could not be imported; first: \(failures.first ?? "unknown")"
            return failures.transient > 0 ? .retry(reason) : .failed(reason)
        }
        return .done
    }

    /// Syncs one patient. Returns nil when it is handled (imported, not modified, or failed alone), or
    /// the outcome that ends the whole run (sign-in needed, lease lost, stopping).
    private func patient(_ recordID: String, etag: String?, source: Source, downloader: RecordDownloader,
                         parser: RecordParser) async -> SyncOutcome? {
        do throws(SyncError) {
            let download = try await limiter.withSlot { () async throws(SyncError) -> RecordDownload in
                try await downloader.download(recordID, etag: etag)
            }
            switch download {
            case .notModified:
                progress.recordNotModified()
                onProgress(progress.advance(), progress.snapshot.total)
                return nil
            case .record(let bytes, let newETag):
                let record: PatientRecord
                do { record = try parser.parse(bytes, recordID: recordID) } catch {
                    throw SyncError.badRecord(recordID: recordID, reason: error.description)
                }
                let done = progress.advance()
                let summary: ImportSummary?
                do {
                    summary = try await store.importRecord(record, sourceName: source.name, etag: newETag, jobID: job.id, owner: owner,
                                                           progressDone: done, now: now())
                } catch {
                    if case .closed = error { throw SyncError.stopped }
                    progress.recordFailure(.store("record \(recordID): \(error.description)"))
                    onProgress(done, progress.snapshot.total)
                    return nil
                }
                guard let summary else { return .leaseLost }
                progress.record(summary)
                onProgress(done, progress.snapshot.total)
                return nil
            }
        } catch {
            switch error {
            case .needsSignIn, .leaseLost, .stopped:
                return Self.outcome(of: error)
            default:
                progress.recordFailure(error)
                onProgress(progress.advance(), progress.snapshot.total)
                return nil
            }
        }
    }
}
