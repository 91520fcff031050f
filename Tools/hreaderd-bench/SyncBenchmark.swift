import Foundation
import ImportJobs
import RHExClient
import SyntheticRecords
import RHExSandbox
import HealthRecord
import Store
import TimelineAPI

/// The RHEx import end to end: the 500-patient sample (or, without `../shared/rhex-samples`, 500
/// synthetic patients) served by the sandbox on loopback, synced into a fresh encrypted store: sign-in,
/// feed, every record downloaded, parsed and stored (one transaction each). Then the same sync again,
/// where every record is answered `304`.
enum SyncBenchmark {
    struct Run {
        var downloads: Int
        var patients: Int
        var entries: Int
        var firstSeconds: Double
        var secondSeconds: Double
    }

    struct Result {
        var corpus: String
        var bytes: Int
        var runs: [Run]
    }

    /// `../shared/rhex-samples/pds_records_500.ndjson` beside the repository: looked for from the working
    /// directory, then from each folder above the executable.
    static var samplePath: String? {
        let relative = "shared/rhex-samples/pds_records_500.ndjson"
        var candidates = [FileManager.default.currentDirectoryPath + "/../" + relative]
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            candidates.append(folder.deletingLastPathComponent().appendingPathComponent(relative).path)
            folder = folder.deletingLastPathComponent()
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }

    static func run(concurrency: [Int] = [1, 4, 8]) async throws -> Result {
        let (records, corpus) = try corpus()
        let sandbox = RHExSandbox(records: records)
        try await sandbox.start()
        var runs: [Run] = []
        do {
            for downloads in concurrency { runs.append(try await once(sandbox: sandbox, downloads: downloads)) }
        } catch {
            await sandbox.stop()
            throw error
        }
        await sandbox.stop()
        return Result(corpus: corpus, bytes: records.reduce(0) { $0 + $1.bytes.count }, runs: runs)
    }

    static func corpus() throws -> ([SandboxRecord], String) {
        if let samplePath {
            return (try SandboxRecord.load(ndjson: samplePath), "pds_records_500.ndjson (the RHEx server's fixture)")
        }
        let generator = SyntheticRecords(seed: 2012)
        let family = generator.family()
        let records = (0..<500).map { index in
            SandboxRecord(id: String(index + 1), bytes: generator.record(for: family[index % family.count], entries: 12, shape: .gen1))
        }
        return (records, "500 synthetic patients of 12 entries (../shared/rhex-samples is absent)")
    }

    static func once(sandbox: RHExSandbox, downloads: Int) async throws -> Run {
        let directory = NSTemporaryDirectory() + "hreaderd-sync-bench-\(getpid())-\(downloads)"
        try? FileManager.default.removeItem(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fast = ScryptParameters(logN: 10, r: 8, p: 1) // the KDF is not what is measured
        let (store, _) = try Store.create(at: StateDirectory(path: directory), password: "bench",
                                          passwordParameters: fast, recoveryParameters: fast, options: .timeline)
        defer { store.close() }
        let configuration = sandbox.configuration
        try await store.addSource(Store.NewSource(
            name: "bench", url: sandbox.baseURL, settings: SourceSettings(clientID: configuration.clientID, username: "family"),
            secrets: SourceSecrets(clientSecret: configuration.clientSecret, userPassword: configuration.users["family"])))
        var sync = SyncConfiguration()
        sync.maxConcurrentDownloads = downloads
        sync.syncIntervalSeconds = 0

        func timedSync() async throws -> (ImportJob, Double) {
            let runner = JobRunner(configuration: sync, syncers: [.rhex: RHExSyncer()], store: { store })
            let start = DispatchTime.now()
            let jobs = try await ImportQueue.enqueue("bench", trigger: .command, store: store)
            let ended = try await runner.runJobs(jobs.map(\.id), waitForOthers: true)
            let seconds = StoreBenchmark.seconds(since: start)
            await runner.stop()
            guard let job = ended.first, job.state == .done else {
                throw SyncError.configuration("the benchmark sync did not complete: \(ended.first?.lastError ?? "no job")")
            }
            return (job, seconds)
        }

        let (first, firstSeconds) = try await timedSync()
        let (second, secondSeconds) = try await timedSync()
        precondition(first.counts.patientsAdded == first.progressTotal, "the benchmark stored fewer patients than the feed lists")
        precondition(second.counts.patientsNotModified == second.progressTotal, "the second sync downloaded records again")
        return Run(downloads: downloads, patients: first.counts.patientsAdded, entries: first.counts.entriesAdded,
                   firstSeconds: firstSeconds, secondSeconds: secondSeconds)
    }

    static func printTable(_ result: Result) {
        print("")
        print("RHEx sync through the sandbox on loopback into a fresh encrypted store: \(result.corpus), \(result.bytes / 1000) kB")
        print(String(repeating: "-", count: 92))
        print(StoreBenchmark.pad("downloads", 11) + StoreBenchmark.pad("patients", 10) + StoreBenchmark.pad("entries", 9)
              + StoreBenchmark.pad("first sync s", 14) + StoreBenchmark.pad("patients/s", 12) + StoreBenchmark.pad("entries/s", 11)
              + "second sync (all 304) s")
        for run in result.runs {
            print(StoreBenchmark.pad(String(run.downloads), 11) + StoreBenchmark.pad(String(run.patients), 10)
                  + StoreBenchmark.pad(String(run.entries), 9) + StoreBenchmark.pad(String(format: "%.3f", run.firstSeconds), 14)
                  + StoreBenchmark.pad(String(format: "%.0f", Double(run.patients) / run.firstSeconds), 12)
                  + StoreBenchmark.pad(String(format: "%.0f", Double(run.entries) / run.firstSeconds), 11)
                  + String(format: "%.3f", run.secondSeconds))
        }
    }

    static func json(_ result: Result) -> String {
        let runs = result.runs.map { run in
            #"{"downloads":\#(run.downloads),"patients":\#(run.patients),"entries":\#(run.entries),"first_sync_seconds":\#(run.firstSeconds),"second_sync_seconds":\#(run.secondSeconds),"patients_per_second":\#(Int(Double(run.patients) / run.firstSeconds)),"entries_per_second":\#(Int(Double(run.entries) / run.firstSeconds))}"#
        }
        return #"{"corpus":"\#(result.corpus)","bytes":\#(result.bytes),"runs":[\#(runs.joined(separator: ","))]}"#
    }
}
