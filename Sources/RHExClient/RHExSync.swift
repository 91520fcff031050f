import ImportJobs
import Records
import HealthRecord
import Store

/// One run of one import job: sign in, read the feed, download each patient's record (a bounded number
/// at once, conditional on its ETag) and import it in its own transaction, renewing the job's lease as
/// it goes. A patient whose download or parse fails is left exactly as it was.
public struct RHExSyncer: SourceSyncer {
    public init() {}

    public func sync(_ run: JobRun) async throws(SyncError) -> SyncOutcome {
        try await RHExSync(run: run).sync()
    }
}

/// The RHEx side of one run (see `RHExSyncer`).
struct RHExSync: Sendable {
    let run: JobRun
    var job: ImportJob { run.job }
    var owner: String { run.owner }
    var store: Store { run.store }
    var fetcher: HTTPFetcher { run.fetcher }
    var limiter: DownloadLimiter { run.limiter }
    var configuration: SyncConfiguration { run.configuration }
    var progress: RunProgress { run.progress }
    var now: @Sendable () -> Int64 { run.now }
    var onProgress: @Sendable (Int, Int?) -> Void { run.onProgress }

    func sync() async throws(SyncError) -> SyncOutcome {
        let (source, credentials) = try await run.sourceAndCredentials()
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
        // The feed is what the server offers: new patients are offered to the person, not imported
        // silently, unless the source imports all; a patient the person removed stays away.
        let wanted: Set<String>
        do {
            wanted = try await store.offerPatients(sourceID: source.id, feed: feed.entries.map { ($0.recordID, $0.title) },
                                                   importAll: source.settings.importsAll, now: now())
        } catch {
            throw SyncError.from(error)
        }
        let entries = feed.entries.filter { wanted.contains($0.recordID) }
        progress.setTotal(entries.count)
        onProgress(0, entries.count)

        let etags: [String: String]
        do { etags = try await store.recordETags(sourceID: source.id) } catch { throw SyncError.from(error) }
        let downloader = RecordDownloader(api: api, endpoints: endpoints, limit: configuration.limits.recordBytes)
        let parser = RecordParser(limits: configuration.parseLimits)

        // A bounded window of patients at once; the limiter bounds downloads over all jobs of the runner.
        let window = max(1, configuration.maxConcurrentDownloads)
        let stop: SyncOutcome? = await withTaskGroup(of: SyncOutcome?.self) { group in
            var pending = entries.makeIterator()
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
                    progress.recordFailure(.store("record \(recordID): \(error.description)"), recordID: recordID,
                                           patientID: Patient.id(sourceName: source.name, recordID: recordID))
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
                return SyncOutcome.of(error)
            default:
                progress.recordFailure(error, recordID: recordID, patientID: Patient.id(sourceName: source.name, recordID: recordID))
                onProgress(progress.advance(), progress.snapshot.total)
                return nil
            }
        }
    }
}
