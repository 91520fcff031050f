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

/// A misbehaving server: errors, hangs, cut and huge bodies. Retries with backoff, nothing half-stored.
@Suite("Syncing from a misbehaving server")
struct FaultTests {
    @Test("500 on the feed, then success: retried within the run, every patient imported once")
    func feedErrorThenSuccess() async throws {
        try await SyncHarness.with(records: Fixtures.records(6)) { harness in
            harness.sandbox.inject(.status(500), on: .feed, times: 2)
            let job = try await harness.sync()
            #expect(job.state == .done && job.attempts == 1)
            #expect(job.counts.patientsAdded == 6)
            #expect(harness.sandbox.stats.feedRequests == 3)
            #expect(harness.sandbox.stats.recordsServed.values.allSatisfy { $0 == 1 })
        }
    }

    @Test("503 on a record, then success: that record is retried and imported once")
    func recordErrorThenSuccess() async throws {
        try await SyncHarness.with(records: Fixtures.records(6)) { harness in
            harness.sandbox.inject(.status(503), on: .record("4"), times: 2)
            let job = try await harness.sync()
            #expect(job.state == .done && job.counts.patientsAdded == 6 && job.counts.patientsFailed == 0)
            #expect(harness.sandbox.stats.recordsServed["4"] == 1)
            #expect(try await harness.patients().count == 6)
        }
    }

    @Test("more 5xx than a run retries: the job is queued again with a backoff, and the next run finishes it")
    func jobLevelRetry() async throws {
        try await SyncHarness.with(records: Fixtures.records(4)) { harness in
            // Three failures use up the first run's request retries; the second run succeeds.
            harness.sandbox.inject(.status(502), on: .record("2"), times: 3)
            let job = try await harness.sync()
            #expect(job.state == .done)
            #expect(job.attempts == 2)
            #expect(job.counts.patientsAdded == 1 && job.counts.patientsNotModified == 3)
            #expect(harness.sandbox.stats.recordsServed.values.allSatisfy { $0 == 1 })
        }
    }

    @Test("a server that keeps failing: the job gives up after its attempts, says why, and the good patients are stored")
    func givesUp() async throws {
        try await SyncHarness.with(records: Fixtures.records(4)) { harness in
            harness.sandbox.inject(.status(503), on: .record("3"), times: nil)
            let job = try await harness.sync()
            #expect(job.state == .failed)
            #expect(job.attempts == SyncHarness.fastConfiguration.jobRetry.attempts)
            let error = try #require(job.lastError)
            // The record's URL names the patient by the store's id, never by the record number.
            let patient = Patient.id(sourceName: harness.sourceName, recordID: "3")
            #expect(error.contains("gave up") && error.contains("records/{patient \(patient)}/c32/{patient \(patient)}.json answered 503"), "\(error)")
            #expect(job.counts.patientsFailed == 1)
            #expect(Set(try await harness.patients().keys) == ["1", "2", "4"])
            // Each run of the job is one row of the audit trail, by source, without the record number.
            let audited = try harness.store.auditEventsSync(action: .sync)
            #expect(audited.count == job.attempts && audited.allSatisfy { $0.actor == "source \(harness.sourceName)" })
            #expect(audited.first?.detail?.contains("failed") == true)
            #expect(try await harness.source.lastError == error)
        }
    }

    @Test("a hanging answer times out and is retried; the rest of the sync goes on meanwhile")
    func hang() async throws {
        try await SyncHarness.with(records: Fixtures.records(5)) { harness in
            harness.sandbox.inject(.delay(seconds: 30), on: .record("2"), times: 1)
            let started = ContinuousClock.now
            let job = try await harness.sync()
            #expect(job.state == .done && job.counts.patientsAdded == 5)
            #expect(harness.sandbox.stats.recordRequests == 6)
            #expect(ContinuousClock.now - started < .seconds(25), "the hang was cut short by the time-out")
        }
    }

    @Test("a hanging feed times out and is retried")
    func hangingFeed() async throws {
        try await SyncHarness.with(records: Fixtures.records(2)) { harness in
            harness.sandbox.inject(.delay(seconds: 30), on: .feed, times: 1)
            let job = try await harness.sync()
            #expect(job.state == .done && harness.sandbox.stats.feedRequests == 2)
        }
    }

    @Test("a truncated record changes nothing of that patient; the others are imported")
    func truncated() async throws {
        try await SyncHarness.with(records: Fixtures.records(4)) { harness in
            try await harness.sync()
            let storedBefore = try await harness.entries(of: "3")
            let etagBefore = try await harness.etag(of: "3")
            // Every record changes on the server; record 3's answers are always cut in half.
            for id in ["1", "2", "3", "4"] {
                let old = try #require(harness.sandbox.record(id: id))
                let changed = String(decoding: old.bytes, as: UTF8.self)
                    .replacingOccurrences(of: #""description":""#, with: #""description":"Revised "#)
                harness.sandbox.setRecord(SandboxRecord(id: id, bytes: Array(changed.utf8)))
            }
            harness.sandbox.inject(.truncate, on: .record("3"), times: nil)
            let job = try await harness.sync()
            #expect(job.state == .failed)
            #expect(job.counts.patientsUpdated == 3 && job.counts.patientsFailed == 1)
            #expect(job.lastError?.contains("patient \(Patient.id(sourceName: harness.sourceName, recordID: "3")): not JSON") == true)
            #expect(try await harness.entries(of: "3") == storedBefore)
            #expect(try await harness.etag(of: "3") == etagBefore)
            #expect(try await harness.etag(of: "2") == harness.sandbox.record(id: "2")?.etag)
        }
    }

    @Test("a record cut short on a new patient stores nothing of it")
    func truncatedNewPatient() async throws {
        try await SyncHarness.with(records: Fixtures.records(3)) { harness in
            harness.sandbox.inject(.truncate, on: .record("1"), times: nil)
            let job = try await harness.sync()
            #expect(job.state == .failed && job.counts.patientsAdded == 2)
            #expect(try await harness.patients()["1"] == nil)
        }
    }

    @Test("a huge body is refused at the size cap, and the patient is left alone")
    func hugeBody() async throws {
        try await SyncHarness.with(records: Fixtures.records(3)) { harness in
            harness.sandbox.inject(.hugeBody(bytes: 2 << 20), on: .record("2"), times: nil)
            var configuration = SyncHarness.fastConfiguration
            configuration.limits.recordBytes = 256 << 10
            let job = try await harness.sync(configuration)
            #expect(job.state == .failed)
            #expect(job.lastError?.contains("larger than the limit of 262144 bytes") == true)
            #expect(job.attempts == 1, "a body over the cap is not worth a retry")
            #expect(Set(try await harness.patients().keys) == ["1", "3"])
        }
    }

    @Test("an unreachable server is retried with backoff, then the job fails with the reason")
    func unreachable() async throws {
        try await SyncHarness.with(records: Fixtures.records(1)) { harness in
            // Point the source at a port nobody listens on.
            let closed = try await harness.store.addSource(Store.NewSource(
                name: harness.sourceName, url: "http://127.0.0.1:9/", settings: SourceSettings(clientID: "c", username: "u"),
                secrets: SourceSecrets(clientSecret: "s", userPassword: "p")), replacing: true)
            #expect(closed.url == "http://127.0.0.1:9/")
            let job = try await harness.sync()
            #expect(job.state == .failed && job.attempts == SyncHarness.fastConfiguration.jobRetry.attempts)
            #expect(job.lastError?.contains("cannot reach http://127.0.0.1:9/oauth2/token") == true)
        }
    }

    @Test("a feed that is not a feed fails the job with a clear error and no retry")
    func badFeed() async throws {
        try await SyncHarness.with(records: Fixtures.records(2)) { harness in
            harness.sandbox.inject(.truncate, on: .feed, times: nil)
            let job = try await harness.sync()
            #expect(job.state == .failed && job.attempts == 1)
            #expect(job.lastError?.hasPrefix("the patient feed is unreadable") == true)
            #expect(try await harness.patients().isEmpty)
        }
    }
}
