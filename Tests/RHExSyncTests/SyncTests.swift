import Foundation
@testable import ImportJobs
import Records
@testable import RHExClient
import SyntheticRecords
import RHExSandbox
import HealthRecord
import Store
import Synchronization
import TestSupport
import Testing
import TimelineAPI

/// Whole syncs against the sandbox serving the RHEx server's own 500-patient fixture.
@Suite("Syncing the 500-patient sample from the sandbox", .enabled(if: SharedSamples.available, SharedSamples.skipReason))
struct SampleSyncTests {
    @Test("a sync imports all 500; a second downloads nothing new and changes nothing; a changed record is updated, ids kept")
    func fullCycle() async throws {
        let records = try Fixtures.pds500()
        #expect(records.count == 500)
        try await SyncHarness.with(records: records) { harness in
            let first = try await harness.sync()
            #expect(first.state == .done)
            #expect(first.progressDone == 500 && first.progressTotal == 500)
            #expect(first.counts.patientsAdded == 500 && first.counts.patientsFailed == 0)
            let patients = try await harness.patients()
            #expect(patients.count == 500)
            #expect(Set(patients.keys) == Set(records.map(\.id)))
            #expect(patients["1"]?.name == "Rhonda Sparks")
            let stats = harness.sandbox.stats
            #expect(stats.recordsServed.count == 500 && stats.recordsServed.values.allSatisfy { $0 == 1 })
            #expect(stats.grantsIssued == ["password": 1])
            #expect(stats.tokensInURL == 0 && stats.missingAccept == 0)
            #expect(try await harness.etag(of: "1") == records[0].etag)
            let source = try await harness.source
            #expect(source.state == .ok && source.lastSyncAt != nil && source.hasToken)

            // Second sync: every record answered 304, nothing written.
            let revisions = patients.mapValues(\.revision)
            harness.sandbox.resetStats()
            let second = try await harness.sync()
            #expect(second.state == .done)
            #expect(second.counts.patientsNotModified == 500 && second.counts.patientsAdded + second.counts.patientsUpdated == 0)
            #expect(harness.sandbox.stats.notModified == 500 && harness.sandbox.stats.recordsServed.isEmpty)
            #expect(harness.sandbox.stats.grantsIssued.isEmpty, "the stored access token is reused")
            #expect(try await harness.patients().mapValues(\.revision) == revisions)

            // A record changes on the server: one result's value and a new condition.
            let before = try await harness.entries(of: "2")
            let original = String(decoding: try #require(harness.sandbox.record(id: "2")).bytes, as: UTF8.self)
            let changed = try Self.changeRecord(original)
            harness.sandbox.setRecord(SandboxRecord(id: "2", bytes: Array(changed.utf8)))
            let third = try await harness.sync()
            #expect(third.state == .done)
            #expect(third.counts.patientsUpdated == 1 && third.counts.patientsNotModified == 499)
            #expect(third.counts.entriesAdded == 1 && third.counts.entriesUpdated == 1 && third.counts.entriesRemoved == 0)
            let after = try await harness.entries(of: "2")
            #expect(Set(before.keys).isSubset(of: Set(after.keys)), "every entry keeps its id")
            #expect(after.count == before.count + 1)
            #expect(before.filter { after[$0.key] != $0.value }.count == 1, "one entry changed in place")
            #expect(try await harness.patients()["2"]?.revision == revisions["2"].map { $0 + 1 })
            #expect(try await harness.etag(of: "2") == harness.sandbox.record(id: "2")?.etag)
        }
    }

    /// Changes the first measured value and adds a condition, editing the text so that every other
    /// entry stays byte for byte the same.
    static func changeRecord(_ json: String) throws -> String {
        let scalar = try #require(json.range(of: #""scalar" : [0-9.]+"#, options: .regularExpression))
        var changed = json.replacingCharacters(in: scalar, with: #""scalar" : 999"#)
        let conditions = try #require(changed.range(of: #""conditions" : [ "#))
        changed.replaceSubrange(conditions, with: #""conditions" : [ { "codes" : { "SNOMED-CT" : [ "38341003" ] }, "time" : 1300000000, "description" : "Hypertension, new" }, "#)
        return changed
    }
}

@Suite("Syncing: queue, concurrency and leases")
struct SyncBehaviourTests {
    @Test("downloads stay within the bound, and do run side by side")
    func concurrencyBound() async throws {
        try await SyncHarness.with(records: Fixtures.records(24)) { harness in
            harness.sandbox.inject(.delay(seconds: 0.05), on: .records, times: nil)
            var configuration = SyncHarness.fastConfiguration
            configuration.maxConcurrentDownloads = 3
            let job = try await harness.sync(configuration)
            #expect(job.state == .done && job.counts.patientsAdded == 24)
            let most = harness.sandbox.stats.mostConcurrentRecordRequests
            #expect(most <= 3)
            #expect(most >= 2)
        }
    }

    @Test("two processes asked to sync the same source: one runs it, the other waits for it; every record is fetched once")
    func twoRunners() async throws {
        try await SyncHarness.with(records: Fixtures.records(12)) { harness in
            harness.sandbox.inject(.delay(seconds: 0.02), on: .records, times: nil)
            let jobs = try await ImportQueue.enqueue(harness.sourceName, trigger: .command, store: harness.store)
            let store = harness.store
            let a = JobRunner(configuration: SyncHarness.fastConfiguration, syncers: [.rhex: RHExSyncer()], store: { store })
            let b = JobRunner(configuration: SyncHarness.fastConfiguration, syncers: [.rhex: RHExSyncer()], store: { store })
            async let endedA = a.runJobs(jobs.map(\.id), waitForOthers: true)
            async let endedB = b.runJobs(jobs.map(\.id), waitForOthers: true)
            let (resultA, resultB) = try await (endedA, endedB)
            await a.stop()
            await b.stop()
            #expect(resultA.first?.state == .done && resultB.first?.state == .done)
            #expect(resultA.first?.attempts == 1)
            #expect(harness.sandbox.stats.feedRequests == 1)
            #expect(harness.sandbox.stats.recordsServed.values.allSatisfy { $0 == 1 })
        }
    }

    @Test("without --wait, a job another process holds is left to it")
    func leftToOthers() async throws {
        try await SyncHarness.with(records: Fixtures.records(2)) { harness in
            let job = try await ImportQueue.enqueue(harness.sourceName, trigger: .command, store: harness.store)[0]
            _ = try await harness.store.claimImportJob(owner: "another-host:1:x", leaseSeconds: 60)
            let runner = JobRunner(configuration: SyncHarness.fastConfiguration, syncers: [.rhex: RHExSyncer()], store: { [store = harness.store] in store })
            let ended = try await runner.runJobs([job.id], waitForOthers: false)
            await runner.stop()
            #expect(ended.first?.state == .running && ended.first?.owner == "another-host:1:x")
            #expect(harness.sandbox.stats.feedRequests == 0)
        }
    }

    @Test("the daemon's runner syncs a new source by itself, and a queued job when woken")
    func backgroundRunner() async throws {
        try await SyncHarness.with(records: Fixtures.records(5)) { harness in
            var configuration = SyncHarness.fastConfiguration
            configuration.syncIntervalSeconds = 3600
            let store = harness.store
            let runner = JobRunner(configuration: configuration, syncers: [.rhex: RHExSyncer()], store: { store })
            await runner.start()
            let first = try await Self.waitForJob(store) { $0.state == .done }
            #expect(first.trigger == "schedule" && first.counts.patientsAdded == 5)
            // Within the interval, nothing more is queued by the schedule; a request runs at once.
            let requested = try await ImportQueue.enqueue(nil, trigger: .request, store: store)
            let second = try await Self.waitForJob(store) { $0.id == requested[0].id && $0.state == .done }
            #expect(second.counts.patientsNotModified == 5)
            await runner.stop()
            #expect(try await store.importJobs().count == 2)
        }
    }

    @Test("stopping cuts a running job short and queues it again; the next runner finishes it, storing each patient once")
    func stopAndResume() async throws {
        try await SyncHarness.with(records: Fixtures.records(20)) { harness in
            harness.sandbox.inject(.delay(seconds: 0.1), on: .records, times: nil)
            var configuration = SyncHarness.fastConfiguration
            configuration.maxConcurrentDownloads = 2
            let store = harness.store
            let runner = JobRunner(configuration: configuration, syncers: [.rhex: RHExSyncer()], store: { store })
            _ = try await ImportQueue.enqueue(nil, trigger: .request, store: store)
            await runner.start()
            let partial = try await Self.waitForJob(store) { $0.state == .running && $0.progressDone >= 4 }
            await runner.stop()
            let released = try #require(try await store.importJob(id: partial.id))
            #expect(released.state == .queued && released.owner == nil)
            let before = try await harness.patients().count
            #expect(before >= 4 && before < 20)
            harness.sandbox.clearFaults()
            let ended = try await harness.sync()
            #expect(ended.id == partial.id && ended.state == .done)
            #expect(ended.counts.patientsNotModified == before && ended.counts.patientsAdded == 20 - before)
            #expect(try await harness.patients().count == 20)
        }
    }

    @Test("locking the store cuts a job short; it waits, and resumes when the store is unlocked again")
    func lockedMidJob() async throws {
        try await SyncHarness.with(records: Fixtures.records(20)) { harness in
            harness.sandbox.inject(.delay(seconds: 0.1), on: .records, times: nil)
            var configuration = SyncHarness.fastConfiguration
            configuration.maxConcurrentDownloads = 2
            let gate = Mutex<Store?>(harness.store)
            let runner = JobRunner(configuration: configuration, syncers: [.rhex: RHExSyncer()], store: { gate.withLock { $0 } })
            _ = try await ImportQueue.enqueue(nil, trigger: .request, store: harness.store)
            await runner.start()
            let partial = try await Self.waitForJob(harness.store) { $0.state == .running && $0.progressDone >= 4 }
            // Lock: the runner sees no store, and the open one is closed under the running job.
            gate.withLock { $0 = nil }
            harness.store.close()
            try await Task.sleep(for: .milliseconds(400))
            let reopened = try Store.open(at: StateDirectory(path: harness.dir.file("state")), password: "pw", options: .timeline)
            defer { reopened.close() }
            let waiting = try #require(try await reopened.importJob(id: partial.id))
            #expect(waiting.state == .running && waiting.owner == runner.owner, "nothing ran while locked")
            let storedWhileLocked = try await reopened.patients().count
            #expect(storedWhileLocked < 20)
            harness.sandbox.clearFaults()
            gate.withLock { $0 = reopened }
            Wakeup.jobs.signal()
            let done = try await Self.waitForJob(reopened) { $0.id == partial.id && $0.state == .done }
            await runner.stop()
            #expect(done.attempts == 2)
            #expect(done.counts.patientsNotModified == storedWhileLocked)
            #expect(try await reopened.patients().count == 20)
        }
    }

    static func waitForJob(_ store: Store, timeout: Double = 20, _ condition: (ImportJob) -> Bool) async throws -> ImportJob {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if let job = try await store.importJobs().first(where: condition) { return job }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HTTPTestClient.Failure(description: "no job reached the expected state within \(timeout) s: \(try await store.importJobs())")
    }
}
