import Foundation
@testable import FHIRClient
import FHIRSandbox
@testable import ImportJobs
import HealthRecord
import Records
@testable import Store
import TestSupport
import Testing

/// A store in a temporary directory, a FHIR sandbox on a free port serving `bundles`, a FHIR source signed
/// in through the sandbox's authorization endpoint the way a browser would be (PKCE and all), and
/// runners with short timeouts. Always stopped by `with`.
final class FHIRSyncHarness: Sendable {
    let dir: TemporaryDirectory
    let store: Store
    let sandbox: FHIRSandbox
    let sourceName = "clinic"
    static let redirectURI = "http://127.0.0.1:9/sources/callback"

    private init(dir: TemporaryDirectory, store: Store, sandbox: FHIRSandbox) {
        self.dir = dir
        self.store = store
        self.sandbox = sandbox
    }

    static var fastConfiguration: SyncConfiguration {
        var configuration = SyncConfiguration()
        configuration.requestTimeoutSeconds = 2
        configuration.requestRetry = Backoff(attempts: 3, baseSeconds: 0.02, maximumSeconds: 0.1)
        configuration.jobRetry = Backoff(attempts: 3, baseSeconds: 0.02, maximumSeconds: 0.1)
        configuration.pollSeconds = 0.05
        configuration.heartbeatSeconds = 0.2
        configuration.leaseSeconds = 30
        configuration.syncIntervalSeconds = 0
        return configuration
    }

    /// 2026-06-01T00:00:00Z: after the sandbox's load time, before the machine's clock, fixed.
    static let start: Int64 = 1_780_272_000

    static func with(bundles: [[UInt8]], configure: (inout FHIRSandbox.Configuration) -> Void = { _ in },
                     signIn: Bool = true, _ body: (FHIRSyncHarness) async throws -> Void) async throws {
        let dir = TemporaryDirectory("hreaderd-fhir-sync")
        let (store, _) = try TestStore.create(at: dir.file("state"))
        var configuration = FHIRSandbox.Configuration()
        configuration.autoApprove = true
        configure(&configuration)
        let sandbox = try FHIRSandbox(configuration: configuration, bundles: bundles)
        _ = try await sandbox.start()
        sandbox.setNow(start)
        let harness = FHIRSyncHarness(dir: dir, store: store, sandbox: sandbox)
        do {
            if signIn { try await harness.signIn() }
            try await body(harness)
        } catch {
            await sandbox.shutdown()
            store.close()
            throw error
        }
        await sandbox.shutdown()
        store.close()
    }

    /// Begins the sign-in as `source add --fhir` does, follows the authorization URL as a browser would
    /// (the sandbox approves at once and redirects), and completes it with the code and state it sent.
    func signIn(clientSecret: String? = nil) async throws {
        let fetcher = HTTPFetcher(timeoutSeconds: 5, maxConnectionsPerHost: 2)
        defer { fetcher.close() }
        let signIn = SMARTSignIn(name: sourceName, server: try FHIRServerURL(sandbox.baseURL), clientID: sandbox.configuration.clientID,
                                 clientSecret: clientSecret, redirectURI: Self.redirectURI, syncIntervalSeconds: nil)
        let url = try await signIn.begin(store: store, fetcher: fetcher)
        let (code, state) = try await Self.approve(url, fetcher: fetcher)
        let source = try await store.completeSignIn(.state(state), code: code, now: Store.now())
        #expect(source?.kind == .fhir)
    }

    /// The redirect the authorization endpoint answers: its `code` and `state`.
    static func approve(_ url: URL, fetcher: HTTPFetcher) async throws -> (code: String, state: String) {
        let answer = try await fetcher.fetch(HTTPRequest(url: url), limit: 1 << 16)
        #expect(answer.status == 302)
        let location = try #require(answer.header("location"))
        let items = try #require(URLComponents(string: location)?.queryItems)
        #expect(location.hasPrefix(redirectURI))
        return (try #require(items.first { $0.name == "code" }?.value), try #require(items.first { $0.name == "state" }?.value))
    }

    /// Queues a sync of the source and runs it to its end (retries included).
    @discardableResult
    func sync(_ configuration: SyncConfiguration = FHIRSyncHarness.fastConfiguration) async throws -> ImportJob {
        let runner = JobRunner(configuration: configuration, syncers: [.fhir: FHIRSyncer()], store: { [store] in store })
        let jobs = try await ImportQueue.enqueue(sourceName, trigger: .command, store: store)
        let ended = try await runner.runJobs(jobs.map(\.id), waitForOthers: true)
        await runner.stop()
        return try #require(ended.first)
    }

    var source: Source {
        get async throws { try #require(try await store.source(named: sourceName)) }
    }

    /// The patients the source made, and every entry of them by id → (type, description, value).
    func entries() async throws -> [String: String] {
        let source = try await self.source
        var out: [String: String] = [:]
        for patient in try await store.patients() where patient.sourceName == source.name {
            let rows = try store.readSync { db in
                try db.rows("SELECT id, type, description, value, status FROM entries WHERE patient_id = ?", [patient.id]) { row in
                    (row.string(0), "\(row.string(1))|\(row.stringOrNil(2) ?? "")|\(row.doubleOrNil(3).map { "\($0)" } ?? "")|\(row.stringOrNil(4) ?? "")")
                }
            }
            for (id, fact) in rows { out[id] = fact }
        }
        return out
    }

    /// What importing the same bundle as a file gives: the entries the mapping knows, by id (the ids are
    /// the resources' own, so a sync and a file import name them alike).
    static func expectedEntries(_ bundle: [UInt8]) throws -> [String: String] {
        let result = try FHIRReader().read(bundle, name: "bundle")
        var out: [String: String] = [:]
        for patient in result.patients {
            for entry in patient.record?.entries ?? [] {
                out[entry.id] = "\(entry.type.rawValue)|\(entry.description ?? "")|\(entry.value.map { "\($0)" } ?? "")|\(entry.status ?? "")"
            }
        }
        return out
    }
}
