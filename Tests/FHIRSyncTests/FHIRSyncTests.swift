import Foundation
@testable import FHIRClient
import FHIRSandbox
@testable import ImportJobs
import HealthRecord
import Records
@testable import Store
import TestSupport
import Testing

/// FHIR patient-access sync end to end: the SMART sign-in through the sandbox's authorization endpoint,
/// the first sync against a plain import of the same bundle, later syncs that ask only for what changed,
/// paging, a server without `$everything`, and every fault the sandbox can play.
@Suite("FHIR sync against the sandbox", .serialized, .enabled(if: SharedSamples.fhir.available, SharedSamples.fhir.skipReason))
struct FHIRSyncTests {
    static let daisey = "synthea_child_daisey_johns.json"
    static let estrella = "synthea_adult_chronic_estrella_daugherty.json"

    static func bundle(_ name: String) throws -> [UInt8] { try SharedSamples.fhir.bytes(name) }

    @Test("the first sync brings every resource the mapping knows, exactly as a file import of the bundle names them")
    func firstSync() async throws {
        let bundle = try Self.bundle(Self.daisey)
        try await FHIRSyncHarness.with(bundles: [bundle]) { harness in
            let job = try await harness.sync()
            #expect(job.state == .done, "\(job.lastError ?? "")")
            let expected = try FHIRSyncHarness.expectedEntries(bundle)
            #expect(expected.count > 100)
            #expect(try await harness.entries() == expected)
            let stats = harness.sandbox.stats
            #expect(stats.pkceVerified)
            #expect(stats.grantsIssued["authorization_code"] == 1)
            #expect(stats.tokensInURL == 0)
            #expect(stats.sinceValues.isEmpty)
            let source = try await harness.source
            #expect(source.settings.fhirPatient == harness.sandbox.patientIDs.first)
            #expect(source.settings.fhirSince != nil)
            // The code and its verifier were single use: gone from the store.
            let credentials = try #require(try await harness.store.sourceCredentials(id: source.id))
            #expect(credentials.secrets.authorizationCode == nil && credentials.secrets.codeVerifier == nil)
            #expect(credentials.tokens.refreshToken != nil)
        }
    }

    @Test("a second sync asks only for what changed and changes nothing; a changed resource is updated in place, its id kept")
    func laterSyncs() async throws {
        let bundle = try Self.bundle(Self.estrella)
        try await FHIRSyncHarness.with(bundles: [bundle]) { harness in
            #expect(try await harness.sync().state == .done)
            let first = try await harness.entries()
            let patientID = try #require(try await harness.store.patients().first?.id)
            let revision = try #require(try await harness.store.patient(id: patientID)).revision

            harness.sandbox.advanceClock(by: 3600)
            harness.sandbox.resetStats()
            let second = try await harness.sync()
            #expect(second.state == .done)
            #expect(harness.sandbox.stats.sinceValues.count == 1)
            #expect(harness.sandbox.stats.resourcesServed <= 1) // the Patient, read for its identity
            #expect(try await harness.entries() == first)
            #expect(second.counts.entriesAdded == 0 && second.counts.entriesUpdated == 0 && second.counts.entriesRemoved == 0)

            // One observation changes on the server: only it comes down, and it is updated where it was.
            let serverPatient = try #require(harness.sandbox.patientIDs.first)
            let observation = try #require(harness.sandbox.resourceKeys(patient: serverPatient).first { $0.hasPrefix("Observation/") })
            let id = String(observation.dropFirst("Observation/".count))
            let raw = try #require(harness.sandbox.resource(type: "Observation", id: id))
            var text = String(decoding: raw, as: UTF8.self)
            let value = try #require(text.firstRange(of: #""value":"#))
            let end = try #require(text[value.upperBound...].firstIndex(where: { $0 == "," || $0 == "}" }))
            text.replaceSubrange(value.upperBound..<end, with: "424242")
            harness.sandbox.advanceClock(by: 60)
            try harness.sandbox.update(resourceType: "Observation", id: id, json: Array(text.utf8))
            harness.sandbox.advanceClock(by: 60)
            harness.sandbox.resetStats()
            let third = try await harness.sync()
            #expect(third.state == .done)
            #expect(third.counts.entriesUpdated == 1 && third.counts.entriesAdded == 0 && third.counts.entriesRemoved == 0)
            let after = try await harness.entries()
            let changed = after.filter { first[$0.key] != $0.value }
            #expect(changed.count == 1)
            #expect(changed.first?.value.contains("424242") == true)
            #expect(Set(after.keys) == Set(first.keys))
            #expect(try #require(try await harness.store.patient(id: patientID)).revision > revision)
        }
    }

    @Test("paging: a page size of 7 reads the record across many pages, every resource once")
    func paging() async throws {
        let bundle = try Self.bundle(Self.daisey)
        let expected = try FHIRSyncHarness.expectedEntries(bundle)
        try await FHIRSyncHarness.with(bundles: [bundle], configure: { $0.pageSize = 7 }) { (harness: FHIRSyncHarness) async throws in
            #expect(try await harness.sync().state == .done)
            #expect(harness.sandbox.stats.pagesServed > 30)
            #expect(try await harness.entries() == expected)
        }
    }

    @Test("a server without $everything: a search a type, with _lastUpdated on the next sync")
    func searchesWithoutEverything() async throws {
        let bundle = try Self.bundle(Self.daisey)
        let expected = try FHIRSyncHarness.expectedEntries(bundle)
        try await FHIRSyncHarness.with(bundles: [bundle], configure: { $0.offersEverything = false; $0.smartConfiguration = false }) { (harness: FHIRSyncHarness) async throws in
            #expect(try await harness.sync().state == .done)
            #expect(try await harness.entries() == expected)
            #expect((harness.sandbox.stats.requests[.search] ?? 0) >= FHIRSync.searchedTypes.count)
            harness.sandbox.advanceClock(by: 60)
            harness.sandbox.resetStats()
            #expect(try await harness.sync().state == .done)
            #expect(harness.sandbox.stats.lastUpdatedValues.count == FHIRSync.searchedTypes.count)
            #expect(harness.sandbox.stats.lastUpdatedValues.allSatisfy { $0.hasPrefix("gt") })
        }
    }

    @Test("faults: 5xx, a hang and a cut page are retried within the run; 429 waits out Retry-After; an expired token is renewed")
    func transientFaults() async throws {
        let bundle = try Self.bundle(Self.daisey)
        let expected = try FHIRSyncHarness.expectedEntries(bundle)
        try await FHIRSyncHarness.with(bundles: [bundle], configure: { $0.pageSize = 40 }) { (harness: FHIRSyncHarness) async throws in
            harness.sandbox.inject(.status(503), target: .everything, count: 1)
            harness.sandbox.inject(.delay(seconds: 4), target: .page, count: 1)
            harness.sandbox.inject(.truncate, target: .page, count: 1)
            harness.sandbox.inject(.tooManyRequests(retryAfter: 1), target: .read, count: 1)
            let started = Date()
            let job = try await harness.sync()
            #expect(job.state == .done, "\(job.lastError ?? "")")
            #expect(job.attempts == 1)
            #expect(Date().timeIntervalSince(started) >= 1) // the Retry-After was waited out
            #expect(harness.sandbox.stats.tooManyRequests == 1)
            #expect(harness.sandbox.stats.faultsServed == 4)
            #expect(try await harness.entries() == expected)

            // An access token the server no longer takes: one refresh, then on.
            harness.sandbox.advanceClock(by: 60)
            harness.sandbox.inject(.expiredToken, target: .read, count: 1)
            harness.sandbox.resetStats()
            #expect(try await harness.sync().state == .done)
            #expect(harness.sandbox.stats.grantsIssued["refresh_token"] == 1)
        }
    }

    @Test("a refused refresh token: needs sign-in, tokens dropped, no loop; an OperationOutcome's words end up in the job's error")
    func refusals() async throws {
        let bundle = try Self.bundle(Self.daisey)
        try await FHIRSyncHarness.with(bundles: [bundle], configure: { $0.accessTokenLifetime = 1 }) { (harness: FHIRSyncHarness) async throws in
            #expect(try await harness.sync().state == .done)
            harness.sandbox.advanceClock(by: 120)
            harness.sandbox.inject(.refuseRefresh, target: .token, count: nil)
            let job = try await harness.sync()
            #expect(job.state == .needsSignIn)
            let source = try await harness.source
            #expect(source.state == .needsSignIn)
            #expect(!source.hasToken)
            #expect((harness.sandbox.stats.grantsRefused["refresh_token"] ?? 0) == 1)
        }
        try await FHIRSyncHarness.with(bundles: [bundle]) { harness in
            harness.sandbox.inject(.operationOutcome(status: 503, text: "The record service is down for maintenance"), target: .everything, count: nil)
            let job = try await harness.sync()
            #expect(job.state == .failed)
            #expect(job.lastError?.contains("down for maintenance") == true)
            #expect(try await harness.entries().isEmpty)
        }
    }

    @Test("a sign-in: an unknown or expired state completes nothing; a code typed by name works once")
    func signInStates() async throws {
        try await FHIRSyncHarness.with(bundles: [try Self.bundle(Self.daisey)], signIn: false) { (harness: FHIRSyncHarness) async throws in
            let fetcher = HTTPFetcher(timeoutSeconds: 5, maxConnectionsPerHost: 1)
            defer { fetcher.close() }
            let signIn = SMARTSignIn(name: harness.sourceName, server: try FHIRServerURL(harness.sandbox.baseURL),
                                     clientID: harness.sandbox.configuration.clientID, clientSecret: nil,
                                     redirectURI: FHIRSyncHarness.redirectURI, syncIntervalSeconds: nil)
            let now = Store.now()
            let url = try await signIn.begin(store: harness.store, fetcher: fetcher, now: now)
            let query = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
            #expect(query.first { $0.name == "aud" }?.value == harness.sandbox.baseURL)
            #expect(query.first { $0.name == "scope" }?.value?.contains("launch/patient") == true)
            let stored = try #require(try await harness.store.pendingSignIn(name: harness.sourceName, now: now))
            #expect(!stored.description.contains(stored.codeVerifier))
            let (code, state) = try await FHIRSyncHarness.approve(url, fetcher: fetcher)
            #expect(try await harness.store.completeSignIn(.state("not-" + state), code: code, now: now) == nil)
            // Expired: 10 minutes and a second later, nothing is made, and the sign-in is gone.
            #expect(try await harness.store.completeSignIn(.state(state), code: code, now: now + PendingSignIn.lifetimeSeconds + 1) == nil)
            #expect(try await harness.store.source(named: harness.sourceName) == nil)
            #expect(try await harness.store.completeSignIn(.state(state), code: code, now: now) == nil)

            _ = try await signIn.begin(store: harness.store, fetcher: fetcher, now: now)
            let again = try await signIn.begin(store: harness.store, fetcher: fetcher, now: now)
            let (code2, _) = try await FHIRSyncHarness.approve(again, fetcher: fetcher)
            #expect(try await harness.store.completeSignIn(.name(harness.sourceName), code: code2, now: now)?.kind == .fhir)
            #expect(try await harness.store.completeSignIn(.name(harness.sourceName), code: code2, now: now) == nil)
            #expect(try await harness.sync().state == .done)
        }
    }

    @Test("a confidential client signs in with its secret; discovery falls back to the CapabilityStatement")
    func confidentialClient() async throws {
        try await FHIRSyncHarness.with(bundles: [try Self.bundle(Self.daisey)], configure: {
            $0.clientSecret = "sandbox-secret"
            $0.smartConfiguration = false
        }, signIn: false) { (harness: FHIRSyncHarness) async throws in
            try await harness.signIn(clientSecret: "sandbox-secret")
            #expect(try await harness.sync().state == .done)
            #expect(harness.sandbox.stats.clientAuthenticationFailures == 0)
            #expect(try await harness.entries().count > 100)
        }
    }
}
