import Foundation
@testable import ImportJobs
import Records
@testable import RHExClient
import SyntheticRecords
import RHExSandbox
import HealthRecord
import Store
import TestSupport
import Testing

/// A store in a temporary directory, an RHEx sandbox on a free loopback port, a source pointing at it,
/// and runners with short timeouts and backoffs. Always stopped by `with`.
final class SyncHarness: Sendable {
    let dir: TemporaryDirectory
    let store: Store
    let sandbox: RHExSandbox
    let sourceName = "sandbox"

    static let user = "family"
    static let userPassword = "sandbox-password"

    private init(dir: TemporaryDirectory, store: Store, sandbox: RHExSandbox) {
        self.dir = dir
        self.store = store
        self.sandbox = sandbox
    }

    /// Short enough that a fault suite runs in seconds; long enough not to fire on a loaded machine by
    /// itself (every request of the sandbox answers in milliseconds unless a fault delays it).
    static var fastConfiguration: SyncConfiguration {
        var configuration = SyncConfiguration()
        configuration.requestTimeoutSeconds = 1
        configuration.requestRetry = Backoff(attempts: 3, baseSeconds: 0.02, maximumSeconds: 0.1)
        configuration.jobRetry = Backoff(attempts: 3, baseSeconds: 0.02, maximumSeconds: 0.1)
        configuration.pollSeconds = 0.05
        configuration.heartbeatSeconds = 0.2
        configuration.leaseSeconds = 30
        configuration.syncIntervalSeconds = 0
        return configuration
    }

    /// Runs `body` with a sandbox serving `records` and a source signed in with the password grant.
    static func with(records: [SandboxRecord], sandbox sandboxConfiguration: RHExSandbox.Configuration = .init(),
                     source: ((String) -> Store.NewSource)? = nil,
                     _ body: (SyncHarness) async throws -> Void) async throws {
        let dir = TemporaryDirectory("hreaderd-sync")
        let (store, _) = try TestStore.create(at: dir.file("state"))
        let sandbox = RHExSandbox(configuration: sandboxConfiguration, records: records)
        try await sandbox.start()
        let harness = SyncHarness(dir: dir, store: store, sandbox: sandbox)
        do {
            let new = source?(sandbox.baseURL) ?? harness.passwordSource()
            try await store.addSource(new)
            try await body(harness)
        } catch {
            await sandbox.stop()
            store.close()
            throw error
        }
        await sandbox.stop()
        store.close()
    }

    func passwordSource(password: String = SyncHarness.userPassword) -> Store.NewSource {
        Store.NewSource(name: sourceName, url: sandbox.baseURL,
                        settings: SourceSettings(clientID: sandbox.configuration.clientID, username: Self.user),
                        secrets: SourceSecrets(clientSecret: sandbox.configuration.clientSecret, userPassword: password))
    }

    /// Queues a sync of the source and runs it to its end (retries included) with a runner of its own.
    @discardableResult
    func sync(_ configuration: SyncConfiguration = SyncHarness.fastConfiguration, wait: Bool = true) async throws -> ImportJob {
        let runner = JobRunner(configuration: configuration, syncers: [.rhex: RHExSyncer()], store: { [store] in store })
        let jobs = try await ImportQueue.enqueue(sourceName, trigger: .command, store: store)
        let ended = try await runner.runJobs(jobs.map(\.id), waitForOthers: wait)
        await runner.stop()
        return try #require(ended.first)
    }

    var source: Source {
        get async throws { try #require(try await store.source(named: sourceName)) }
    }

    /// Patients of the sandbox source, by record id.
    func patients() async throws -> [String: Patient] {
        var result: [String: Patient] = [:]
        for patient in try await store.patients() where patient.sourceName == sourceName { result[patient.recordID] = patient }
        return result
    }

    /// Entry ids and content hashes of one patient, to compare before and after.
    func entries(of recordID: String) async throws -> [String: [UInt8]] {
        let id = Patient.id(sourceName: sourceName, recordID: recordID)
        return try await store.read { db in
            var entries: [String: [UInt8]] = [:]
            try db.statement("SELECT id, content_hash FROM entries WHERE patient_id = ?").forEach([id]) { row in
                entries[row.string(0)] = row.bytes(1)
            }
            return entries
        }
    }

    func etag(of recordID: String) async throws -> String? {
        let id = Patient.id(sourceName: sourceName, recordID: recordID)
        return try await store.read { db in try db.scalar("SELECT etag FROM patients WHERE id = ?", [id], as: String.self) }
    }
}

/// Small synthetic records with ids "1"…"n", a few entries each, for the fault tests.
enum Fixtures {
    static func records(_ count: Int, entries: Int = 6, seed: UInt64 = 7) -> [SandboxRecord] {
        let generator = SyntheticRecords(seed: seed)
        let family = generator.family()
        return (0..<count).map { index in
            SandboxRecord(id: String(index + 1), bytes: generator.record(for: family[index % family.count], entries: entries + index % 3, shape: .gen1))
        }
    }

    /// The sandbox's copy of the 500-patient RHEx fixture.
    static func pds500() throws -> [SandboxRecord] {
        try SandboxRecord.load(ndjson: SharedSamples.path("pds_records_500.ndjson"))
    }
}
