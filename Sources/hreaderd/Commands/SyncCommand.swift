import ArgumentParser
import FHIRClient
import FoundationEssentials
import ImportJobs
import RHExClient
import HealthRecord
import Store
import Synchronization

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Import from RHEx sources now, in this process: progress on stderr, results on stdout.",
        discussion: """
            Syncs the source NAME, or every RHEx source. It works whether or not a daemon serves the same store: a \
            source that the daemon is syncing at that moment is left to it (with --wait, waited for). A sync that \
            fails on network errors or 5xx answers is retried within the run; if that is not enough, it is queued \
            for a later retry, which --wait waits for and runs here. Exit status 0 when every sync completed.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The source to sync (default: every RHEx source).", valueName: "name"))
    var name: String?

    @Flag(help: "Wait until every sync is over: run its retries here after their backoff, wait for one another process runs.")
    var wait = false

    @Option(help: ArgumentHelp("Seconds one request to the server may take.", valueName: "seconds"))
    var timeout: Double = 30

    @Option(help: ArgumentHelp("Record downloads at once.", valueName: "n"))
    var downloads = 4

    @Option(help: .hidden) var retryBase: Double?

    func validate() throws {
        guard timeout > 0 && timeout <= 3600 else { throw ValidationError("--timeout must be more than 0 and at most 3600 seconds") }
        guard (1...32).contains(downloads) else { throw ValidationError("--downloads must be 1…32") }
    }

    func run() async throws {
        let store = try global.openStore()
        defer { store.close() }
        let queued: [ImportJob]
        do { queued = try await ImportQueue.enqueue(name, trigger: .command, store: store) } catch {
            throw CLIError(error.description)
        }
        var configuration = SyncConfiguration()
        configuration.requestTimeoutSeconds = timeout
        configuration.maxConcurrentDownloads = downloads
        configuration.syncIntervalSeconds = 0
        if let retryBase {
            configuration.requestRetry.baseSeconds = retryBase
            configuration.jobRetry.baseSeconds = retryBase
            configuration.pollSeconds = min(configuration.pollSeconds, max(0.05, retryBase))
        }
        let reporter = ProgressReporter()
        let runner = JobRunner(configuration: configuration, syncers: [.rhex: RHExSyncer(), .fhir: FHIRSyncer()], store: { store }, onEvent: { event in reporter.report(event) })
        let ended: [ImportJob]
        do {
            ended = try await runner.runJobs(queued.map(\.id), waitForOthers: wait)
        } catch {
            await runner.stop()
            throw error
        }
        await runner.stop()
        var incomplete = 0
        for job in ended {
            Console.out(Self.result(job, startedHere: reporter.started(job.id), seconds: reporter.seconds(job.id)))
            if job.state != .done { incomplete += 1 }
        }
        if incomplete > 0 {
            throw CLIError("\(incomplete) of \(ended.count) sync\(ended.count == 1 ? "" : "s") did not complete (see above)")
        }
    }

    static func result(_ job: ImportJob, startedHere: Bool, seconds: Double?) -> String {
        let name = job.sourceName
        switch job.state {
        case .done:
            let took = seconds.map { " in \(decimal($0, places: 1)) s" }
                ?? job.finishedAt.flatMap { end in job.startedAt.map { " in \(end - $0) s" } } ?? ""
            return "\(name): done\(took): \(job.counts.summary)"
        case .failed:
            return "\(name): failed after \(job.attempts) attempt\(job.attempts == 1 ? "" : "s"): \(job.lastError ?? "no reason given")"
        case .needsSignIn:
            return "\(name): needs sign-in: \(job.lastError ?? "the server refused our credentials"); "
                + "sign in again with `hreaderd source add \(name) --update …`"
        case .queued:
            let when = job.nextRunAt.map { " at " + TimeText.instant($0) } ?? ""
            return "\(name): not done: \(job.lastError ?? "waiting"); a retry is queued\(when) (`hreaderd sync \(name) --wait`, or the daemon, runs it)"
        case .running:
            return startedHere
                ? "\(name): stopped while running"
                : "\(name): another process (the daemon?) is syncing it now; pass --wait to wait for it"
        }
    }
}

/// Progress lines on stderr: when a sync starts, at most one a second while it runs, and when it ends.
final class ProgressReporter: Sendable {
    private struct State {
        var lastLine: [Int64: (at: ContinuousClock.Instant, done: Int)] = [:]
        var started: Set<Int64> = []
        /// When this process last started each job, and how long its last run took.
        var startedAt: [Int64: ContinuousClock.Instant] = [:]
        var seconds: [Int64: Double] = [:]
    }

    private let state = Mutex(State())
    static let interval: Duration = .seconds(1)

    func started(_ id: Int64) -> Bool { state.withLock { $0.started.contains(id) } }

    func seconds(_ id: Int64) -> Double? { state.withLock { $0.seconds[id] } }

    func report(_ event: JobEvent) {
        switch event {
        case .started(let job):
            state.withLock { state in
                state.started.insert(job.id)
                state.startedAt[job.id] = .now
            }
            Console.err("\(job.sourceName): syncing (attempt \(job.attempts))…")
        case let .progress(id, source, done, total):
            let now = ContinuousClock.now
            let due = state.withLock { state -> Bool in
                if let last = state.lastLine[id], last.done == done || (now - last.at < Self.interval && done != total) { return false }
                state.lastLine[id] = (now, done)
                return true
            }
            if due, let total { Console.err("\(source): \(done) of \(total) patients") }
        case .finished(let job):
            state.withLock { state in
                if let start = state.startedAt[job.id] {
                    let elapsed = ContinuousClock.now - start
                    state.seconds[job.id] = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                }
            }
            if job.state == .queued, let error = job.lastError { Console.err("\(job.sourceName): will retry: \(error)") }
        case .problem(let message):
            Console.err("hreaderd: \(message)")
        }
    }
}
