import Foundation
@testable import ImportJobs
import Records
@testable import RHExClient
import SyntheticRecords
import HealthRecord
import Store
import TestSupport
import Testing

/// The persisted queue in the store: one job per source at a time, leases, resumption, history.
@Suite("Import jobs in the store")
struct JobQueueTests {
    let dir = TemporaryDirectory("hreaderd-jobs")

    func store() throws -> Store {
        try TestStore.create(at: dir.file("state")).store
    }

    func addSource(_ store: Store, _ name: String = "pds") async throws -> Source {
        try await store.addSource(Store.NewSource(name: name, url: "http://127.0.0.1:9/",
                                                  settings: SourceSettings(clientID: "c", username: "u"),
                                                  secrets: SourceSecrets(clientSecret: "s", userPassword: "p")), now: 1000)
    }

    @Test("a source gets one queued or running job at a time; asking again returns that job")
    func oneActiveJobPerSource() async throws {
        let store = try store()
        defer { store.close() }
        let source = try await addSource(store)
        let first = try await store.enqueueImport(sourceID: source.id, trigger: .request, now: 1000)
        let second = try await store.enqueueImport(sourceID: source.id, trigger: .command, now: 1001)
        #expect(first.created && !second.created)
        #expect(second.job.id == first.job.id)
        let claimed = try await store.claimImportJob(owner: "a", leaseSeconds: 60, now: 1002)
        #expect(claimed?.id == first.job.id)
        #expect(try await store.enqueueImport(sourceID: source.id, trigger: .request, now: 1003).job.id == first.job.id)
    }

    @Test("a running job's lease keeps others off until it lapses; then the job is taken over, one attempt more")
    func lease() async throws {
        let store = try store()
        defer { store.close() }
        let source = try await addSource(store)
        let job = try await store.enqueueImport(sourceID: source.id, trigger: .request, now: 1000).job
        let mine = try #require(try await store.claimImportJob(owner: "a", leaseSeconds: 60, now: 1000))
        #expect(mine.state == .running && mine.owner == "a" && mine.attempts == 1)
        #expect(try await store.claimImportJob(owner: "b", leaseSeconds: 60, now: 1030) == nil)
        #expect(try await store.heartbeatImportJob(id: job.id, owner: "a", progressDone: 3, progressTotal: 10, counts: ImportCounts(), now: 1050))
        #expect(try await store.claimImportJob(owner: "b", leaseSeconds: 60, now: 1100) == nil)
        let taken = try #require(try await store.claimImportJob(owner: "b", leaseSeconds: 60, now: 1111))
        #expect(taken.id == job.id && taken.owner == "b" && taken.attempts == 2 && taken.progressDone == 0)
        // The old holder finds out at its next heartbeat, and can no longer finish it or import for it.
        #expect(try await store.heartbeatImportJob(id: job.id, owner: "a", progressDone: 4, progressTotal: 10, counts: ImportCounts(), now: 1112) == false)
        #expect(try await store.finishImportJob(id: job.id, owner: "a", end: .done, progressDone: 10, progressTotal: 10, counts: ImportCounts(), now: 1113) == false)
        #expect(try await store.importJob(id: job.id)?.state == .running)
    }

    @Test("a job whose holder is known dead is taken over at once")
    func reclaimDeadOwner() async throws {
        let store = try store()
        defer { store.close() }
        let source = try await addSource(store)
        _ = try await store.enqueueImport(sourceID: source.id, trigger: .request, now: 1000)
        _ = try #require(try await store.claimImportJob(owner: "dead", leaseSeconds: 60, now: 1000))
        #expect(try await store.claimImportJob(owner: "b", leaseSeconds: 60, now: 1001) == nil)
        #expect(try await store.claimImportJob(owner: "b", leaseSeconds: 60, reclaimableOwners: ["dead"], now: 1001)?.attempts == 2)
    }

    @Test("an owner string names a dead process only when that process is gone from this host")
    func deadOwners() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        #expect(JobOwner.isDeadProcessOnThisHost("\(JobOwner.hostName):\(process.processIdentifier):ab"))
        #expect(!JobOwner.isDeadProcessOnThisHost("\(JobOwner.hostName):\(getpid()):ab"))
        #expect(!JobOwner.isDeadProcessOnThisHost("\(JobOwner.hostName):1:ab"))
        #expect(!JobOwner.isDeadProcessOnThisHost("elsewhere.example:\(process.processIdentifier):ab"))
        #expect(!JobOwner.isDeadProcessOnThisHost("nonsense"))
    }

    @Test("a retry waits out its backoff; asking for a sync moves it to now")
    func retry() async throws {
        let store = try store()
        defer { store.close() }
        let source = try await addSource(store)
        let job = try await store.enqueueImport(sourceID: source.id, trigger: .request, now: 1000).job
        _ = try await store.claimImportJob(owner: "a", leaseSeconds: 60, now: 1000)
        #expect(try await store.finishImportJob(id: job.id, owner: "a", end: .retry(reason: "503", at: 1100), progressDone: 0,
                                                progressTotal: nil, counts: ImportCounts(), now: 1001))
        #expect(try await store.claimImportJob(owner: "a", leaseSeconds: 60, now: 1050) == nil)
        #expect(try await store.source(id: source.id)?.lastError == "503")
        let moved = try await store.enqueueImport(sourceID: source.id, trigger: .request, now: 1060)
        #expect(!moved.created && moved.job.nextRunAt == nil)
        #expect(try await store.claimImportJob(owner: "a", leaseSeconds: 60, now: 1061)?.attempts == 2)
    }

    @Test("a released job is queued again without counting the attempt")
    func release() async throws {
        let store = try store()
        defer { store.close() }
        let source = try await addSource(store)
        let job = try await store.enqueueImport(sourceID: source.id, trigger: .request, now: 1000).job
        _ = try await store.claimImportJob(owner: "a", leaseSeconds: 60, now: 1000)
        try await store.finishImportJob(id: job.id, owner: "a", end: .release, progressDone: 5, progressTotal: 9, counts: ImportCounts(), now: 1001)
        let queued = try #require(try await store.importJob(id: job.id))
        #expect(queued.state == .queued && queued.attempts == 0 && queued.owner == nil)
    }

    @Test("needing sign-in marks the source and drops its tokens; a done job records the sync")
    func endings() async throws {
        let store = try store()
        defer { store.close() }
        let source = try await addSource(store)
        try await store.saveTokens(sourceID: source.id, SourceTokens(accessToken: "at", accessTokenExpiresAt: 5000, refreshToken: "rt"))
        var job = try await store.enqueueImport(sourceID: source.id, trigger: .request, now: 1000).job
        _ = try await store.claimImportJob(owner: "a", leaseSeconds: 60, now: 1000)
        try await store.finishImportJob(id: job.id, owner: "a", end: .needsSignIn(reason: "invalid_grant"), progressDone: 0,
                                        progressTotal: nil, counts: ImportCounts(), now: 1001)
        let signedOut = try #require(try await store.source(id: source.id))
        #expect(signedOut.state == .needsSignIn && !signedOut.hasToken && signedOut.lastError == "invalid_grant")
        #expect(try await store.sourceCredentials(id: source.id)?.tokens == SourceTokens())
        // The schedule leaves it alone; a sync asked for explicitly still runs.
        #expect(try await store.enqueueDueImports(defaultIntervalSeconds: 1, now: 9999).isEmpty)
        job = try await store.enqueueImport(sourceID: source.id, trigger: .request, now: 1002).job
        _ = try await store.claimImportJob(owner: "a", leaseSeconds: 60, now: 1002)
        try await store.finishImportJob(id: job.id, owner: "a", end: .done, progressDone: 0, progressTotal: 0, counts: ImportCounts(), now: 1003)
        let synced = try #require(try await store.source(id: source.id))
        #expect(synced.state == .ok && synced.lastSyncAt == 1003 && synced.lastError == nil)
    }

    @Test("the schedule queues a source when its interval has passed since its last job")
    func schedule() async throws {
        let store = try store()
        defer { store.close() }
        let source = try await addSource(store)
        let first = try await store.enqueueDueImports(defaultIntervalSeconds: 3600, now: 1000)
        #expect(first.map(\.sourceID) == [source.id] && first.first?.trigger == "schedule")
        #expect(try await store.enqueueDueImports(defaultIntervalSeconds: 3600, now: 1001).isEmpty)
        _ = try await store.claimImportJob(owner: "a", leaseSeconds: 60, now: 1001)
        try await store.finishImportJob(id: first[0].id, owner: "a", end: .done, progressDone: 0, progressTotal: 0, counts: ImportCounts(), now: 1010)
        #expect(try await store.enqueueDueImports(defaultIntervalSeconds: 3600, now: 4000).isEmpty)
        #expect(try await store.enqueueDueImports(defaultIntervalSeconds: 3600, now: 4610).count == 1)
        #expect(try await store.enqueueDueImports(defaultIntervalSeconds: 0, now: 99999).isEmpty)
    }

    @Test("finished jobs are pruned to the newest few per source")
    func pruning() async throws {
        let store = try store()
        defer { store.close() }
        let source = try await addSource(store)
        for round in 0..<(Store.finishedJobsKept + 5) {
            let now = Int64(1000 + round * 10)
            let job = try await store.enqueueImport(sourceID: source.id, trigger: .request, now: now).job
            _ = try await store.claimImportJob(owner: "a", leaseSeconds: 60, now: now)
            try await store.finishImportJob(id: job.id, owner: "a", end: .failed(reason: "r\(round)"), progressDone: 0,
                                            progressTotal: nil, counts: ImportCounts(), now: now + 1)
        }
        let jobs = try await store.importJobs(limit: 100)
        #expect(jobs.count == Store.finishedJobsKept)
        #expect(jobs.first?.lastError == "r\(Store.finishedJobsKept + 4)")
    }

    @Test("a source with patients is removed only when its patients may go too")
    func removeSource() async throws {
        let store = try store()
        defer { store.close() }
        _ = try await addSource(store)
        _ = try await store.importRecord(.record("1", name: "Ann Lee"), sourceName: "pds")
        await #expect(throws: StoreError.self) { try await store.removeSource(named: "pds", deletingPatients: false) }
        #expect(try await store.patients().count == 1)
        #expect(try await store.removeSource(named: "pds", deletingPatients: true) == 1)
        #expect(try await store.patients().isEmpty)
        #expect(try await store.removeSource(named: "pds", deletingPatients: true) == nil)
        #expect(try await store.removeSource(named: "files", deletingPatients: true) == nil)
    }

    @Test("source names are checked, and a second source of a name needs replacing")
    func names() async throws {
        let store = try store()
        defer { store.close() }
        _ = try await addSource(store)
        await #expect(throws: StoreError.self) { try await addSource(store) }
        await #expect(throws: StoreError.self) { try await addSource(store, "files") }
        await #expect(throws: StoreError.self) { try await addSource(store, "a/b") }
        let replaced = try await store.addSource(Store.NewSource(name: "pds", url: "http://127.0.0.1:10/",
                                                                 settings: SourceSettings(clientID: "c2", username: "u"),
                                                                 secrets: SourceSecrets(clientSecret: "s2", userPassword: "p2")),
                                                 replacing: true)
        #expect(replaced.url == "http://127.0.0.1:10/" && replaced.settings.clientID == "c2")
        #expect(try await store.sourceCredentials(id: replaced.id)?.secrets.clientSecret == "s2")
    }
}
