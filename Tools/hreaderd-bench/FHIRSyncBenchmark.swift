import FHIRClient
import FHIRSandbox
import Foundation
import ImportJobs
import HealthRecord
import Store
import TimelineAPI

/// FHIR patient-access sync end to end: every patient of `../shared/fhir-samples/` served by the FHIR
/// sandbox on loopback (a SMART server), each signed in to as its own source (PKCE, code exchange) and
/// synced into one fresh encrypted store: `$everything` paged, parsed, mapped and stored. Then each again,
/// where only changes (none) are asked for.
enum FHIRSyncBenchmark {
    struct Result {
        var patients: Int
        var resources: Int
        var entries: Int
        var pages: Int
        var firstSeconds: Double
        var secondSeconds: Double
        var pageSize: Int
    }

    static var samplesPath: String? {
        let relative = "shared/fhir-samples"
        var candidates = [FileManager.default.currentDirectoryPath + "/../" + relative]
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            candidates.append(folder.deletingLastPathComponent().appendingPathComponent(relative).path)
            folder = folder.deletingLastPathComponent()
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/README.md") }
    }

    static func run(pageSize: Int = 50) async throws -> Result? {
        guard let samplesPath else { return nil }
        let data = try FHIRDataset(paths: [samplesPath])
        let directory = NSTemporaryDirectory() + "hreaderd-fhir-sync-bench-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fast = ScryptParameters(logN: 10, r: 8, p: 1) // the KDF is not what is measured
        let (store, _) = try Store.create(at: StateDirectory(path: directory), password: "bench",
                                          passwordParameters: fast, recoveryParameters: fast, options: .timeline)
        defer { store.close() }
        var sync = SyncConfiguration()
        sync.syncIntervalSeconds = 0
        let fetcher = HTTPFetcher(timeoutSeconds: 30, maxConnectionsPerHost: 2)
        defer { fetcher.close() }

        var result = Result(patients: 0, resources: 0, entries: 0, pages: 0, firstSeconds: 0, secondSeconds: 0, pageSize: pageSize)
        for (index, patient) in data.patientIDs.enumerated() {
            var configuration = FHIRSandbox.Configuration()
            configuration.autoApprove = true
            configuration.autoApprovePatient = patient
            configuration.pageSize = pageSize
            let sandbox = FHIRSandbox(configuration: configuration, data: data)
            _ = try await sandbox.start()
            do {
                let name = "fhir-\(index)"
                let signIn = SMARTSignIn(name: name, server: try FHIRServerURL(sandbox.baseURL), clientID: configuration.clientID,
                                         clientSecret: nil, redirectURI: "http://127.0.0.1:9/sources/callback", syncIntervalSeconds: 0)
                let url = try await signIn.begin(store: store, fetcher: fetcher)
                let answer = try await fetcher.fetch(HTTPRequest(url: url), limit: 1 << 16)
                guard let location = answer.header("location"), let items = URLComponents(string: location)?.queryItems,
                      let code = items.first(where: { $0.name == "code" })?.value, let state = items.first(where: { $0.name == "state" })?.value,
                      try await store.completeSignIn(.state(state), code: code, now: Store.now()) != nil else {
                    throw SyncError.configuration("the benchmark could not sign in to the sandbox for \(patient)")
                }
                let (first, firstSeconds) = try await timedSync(name, store: store, configuration: sync)
                let stats = sandbox.stats
                sandbox.advanceClock(by: 60)
                let (_, secondSeconds) = try await timedSync(name, store: store, configuration: sync)
                result.patients += 1
                result.resources += stats.resourcesServed
                result.pages += stats.pagesServed
                result.entries += first.counts.entriesAdded
                result.firstSeconds += firstSeconds
                result.secondSeconds += secondSeconds
            } catch {
                await sandbox.shutdown()
                throw error
            }
            await sandbox.shutdown()
        }
        return result
    }

    static func timedSync(_ name: String, store: Store, configuration: SyncConfiguration) async throws -> (ImportJob, Double) {
        let runner = JobRunner(configuration: configuration, syncers: [.fhir: FHIRSyncer()], store: { store })
        let start = DispatchTime.now()
        let jobs = try await ImportQueue.enqueue(name, trigger: .command, store: store)
        let ended = try await runner.runJobs(jobs.map(\.id), waitForOthers: true)
        let seconds = StoreBenchmark.seconds(since: start)
        await runner.stop()
        guard let job = ended.first, job.state == .done else {
            throw SyncError.configuration("the benchmark sync of \(name) did not complete: \(ended.first?.lastError ?? "no job")")
        }
        return (job, seconds)
    }

    static func printTable(_ result: Result?) {
        print("")
        guard let result else {
            print("FHIR sync through the sandbox: skipped (../shared/fhir-samples is absent)")
            return
        }
        print("FHIR sync through the SMART sandbox on loopback into a fresh encrypted store: every patient of ../shared/fhir-samples,"
              + " one source each, pages of \(result.pageSize)")
        print(String(repeating: "-", count: 92))
        print(StoreBenchmark.pad("patients", 10) + StoreBenchmark.pad("resources", 11) + StoreBenchmark.pad("pages", 7)
              + StoreBenchmark.pad("entries", 9) + StoreBenchmark.pad("first syncs s", 15) + StoreBenchmark.pad("resources/s", 13)
              + "second syncs (nothing changed) s")
        print(StoreBenchmark.pad(String(result.patients), 10) + StoreBenchmark.pad(String(result.resources), 11)
              + StoreBenchmark.pad(String(result.pages), 7) + StoreBenchmark.pad(String(result.entries), 9)
              + StoreBenchmark.pad(String(format: "%.3f", result.firstSeconds), 15)
              + StoreBenchmark.pad(String(format: "%.0f", Double(result.resources) / result.firstSeconds), 13)
              + String(format: "%.3f", result.secondSeconds))
    }

    static func json(_ result: Result?) -> String {
        guard let result else { return #"{"skipped":"../shared/fhir-samples is absent"}"# }
        return #"{"patients":\#(result.patients),"resources":\#(result.resources),"pages":\#(result.pages),"entries":\#(result.entries),"page_size":\#(result.pageSize),"first_syncs_seconds":\#(result.firstSeconds),"second_syncs_seconds":\#(result.secondSeconds),"resources_per_second":\#(Int(Double(result.resources) / result.firstSeconds))}"#
    }
}
