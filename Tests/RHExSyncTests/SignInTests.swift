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

/// OAuth2: tokens kept and renewed one at a time, and a clear "needs sign-in" instead of a retry loop.
@Suite("Signing in to an RHEx server")
struct SignInTests {
    @Test("an access token the server has expired is refreshed once and the requests repeated")
    func expiredToken() async throws {
        try await SyncHarness.with(records: Fixtures.records(8)) { harness in
            try await harness.sync()
            harness.sandbox.expireAccessTokens()
            for id in harness.sandbox.recordIDs {
                let record = try #require(harness.sandbox.record(id: id))
                harness.sandbox.setRecord(SandboxRecord(id: id, bytes: record.bytes + Array(" ".utf8)))
            }
            harness.sandbox.resetStats()
            let job = try await harness.sync()
            #expect(job.state == .done && job.counts.patientsUnchanged == 8)
            let stats = harness.sandbox.stats
            #expect(stats.grantsIssued == ["refresh_token": 1])
            #expect(stats.unauthorized == 1, "the feed was refused once, then repeated with the new token")
            #expect(stats.feedRequests == 2)
        }
    }

    @Test("requests that all meet an expired token at once share one refresh")
    func concurrentRefusals() async throws {
        try await SyncHarness.with(records: Fixtures.records(12)) { harness in
            try await harness.sync()
            // The feed still works with the old token; then every record request is refused once.
            harness.sandbox.inject(.unauthorized, on: .records, times: 4)
            for id in harness.sandbox.recordIDs {
                let record = try #require(harness.sandbox.record(id: id))
                harness.sandbox.setRecord(SandboxRecord(id: id, bytes: record.bytes + Array(" ".utf8)))
            }
            harness.sandbox.resetStats()
            var configuration = SyncHarness.fastConfiguration
            configuration.maxConcurrentDownloads = 4
            let job = try await harness.sync(configuration)
            #expect(job.state == .done)
            #expect((harness.sandbox.stats.grantsIssued["refresh_token"] ?? 0) <= 2)
        }
    }

    @Test("a token with under 60 s left is refreshed before it is used")
    func nearExpiry() async throws {
        try await SyncHarness.with(records: Fixtures.records(2)) { harness in
            try await harness.sync()
            let source = try await harness.source
            let tokens = try #require(try await harness.store.sourceCredentials(id: source.id)?.tokens)
            var soon = tokens
            soon.accessTokenExpiresAt = Store.now() + 30
            try await harness.store.saveTokens(sourceID: source.id, soon)
            harness.sandbox.resetStats()
            let job = try await harness.sync()
            #expect(job.state == .done)
            #expect(harness.sandbox.stats.grantsIssued == ["refresh_token": 1])
            #expect(harness.sandbox.stats.unauthorized == 0)
            let renewed = try #require(try await harness.store.sourceCredentials(id: source.id)?.tokens)
            #expect(renewed.accessToken != tokens.accessToken)
            #expect(renewed.refreshToken != tokens.refreshToken, "the rotated refresh token was kept")
            #expect((renewed.accessTokenExpiresAt ?? 0) > Store.now() + 3000)
        }
    }

    @Test("a server that issues short-lived tokens is not asked for a new one on every request")
    func shortLivedTokens() async throws {
        var sandbox = RHExSandbox.Configuration()
        sandbox.accessTokenLifetime = 40
        try await SyncHarness.with(records: Fixtures.records(10), sandbox: sandbox) { harness in
            let job = try await harness.sync()
            #expect(job.state == .done)
            #expect(harness.sandbox.stats.grantsIssued == ["password": 1])
        }
    }

    @Test("invalid_grant: the source needs sign-in, the job says so, and nothing is retried")
    func invalidGrant() async throws {
        try await SyncHarness.with(records: Fixtures.records(3)) { harness in
            harness.sandbox.inject(.invalidGrant, on: .token, times: nil)
            let job = try await harness.sync()
            #expect(job.state == .needsSignIn && job.attempts == 1)
            #expect(job.lastError?.contains("invalid_grant") == true)
            #expect(harness.sandbox.stats.grantsRefused == ["password": 1])
            #expect(harness.sandbox.stats.feedRequests == 0)
            let source = try await harness.source
            #expect(source.state == .needsSignIn && !source.hasToken)
            // The schedule leaves it alone until the user signs in again.
            #expect(try await harness.store.enqueueDueImports(defaultIntervalSeconds: 1, now: Store.now() + 10).isEmpty)
            // Signing in again (`source add --update`) makes it sync.
            harness.sandbox.clearFaults()
            try await harness.store.addSource(harness.passwordSource(), replacing: true)
            #expect(try await harness.sync().state == .done)
            #expect(try await harness.source.state == .ok)
        }
    }

    @Test("a wrong password needs sign-in after one try")
    func wrongPassword() async throws {
        try await SyncHarness.with(records: Fixtures.records(1)) { harness in
            try await harness.store.addSource(harness.passwordSource(password: "wrong"), replacing: true)
            let job = try await harness.sync()
            #expect(job.state == .needsSignIn)
            #expect(harness.sandbox.stats.grantsRefused == ["password": 1])
        }
    }

    @Test("a dead refresh token falls back to the password grant")
    func refreshFallsBack() async throws {
        try await SyncHarness.with(records: Fixtures.records(2)) { harness in
            try await harness.sync()
            harness.sandbox.expireAccessTokens()
            harness.sandbox.revokeRefreshTokens()
            harness.sandbox.resetStats()
            let job = try await harness.sync()
            #expect(job.state == .done)
            #expect(harness.sandbox.stats.grantsRefused == ["refresh_token": 1])
            #expect(harness.sandbox.stats.grantsIssued == ["password": 1])
        }
    }

    @Test("a 302 to the sign-in page means sign in again, not a redirect to follow")
    func redirectToSignIn() async throws {
        try await SyncHarness.with(records: Fixtures.records(2)) { harness in
            harness.sandbox.inject(.redirectToSignIn, on: .feed, times: nil)
            let job = try await harness.sync()
            #expect(job.state == .needsSignIn && job.attempts == 1)
            #expect(job.lastError?.contains("redirected to /users/sign_in (302)") == true)
            #expect(harness.sandbox.stats.feedRequests == 1)
        }
    }

    @Test("a 401 that a new token does not cure: needs sign-in after one renewal, not a loop")
    func persistentUnauthorized() async throws {
        try await SyncHarness.with(records: Fixtures.records(2)) { harness in
            harness.sandbox.inject(.unauthorized, on: .feed, times: nil)
            let job = try await harness.sync()
            #expect(job.state == .needsSignIn)
            #expect(job.lastError?.contains("401") == true)
            #expect(harness.sandbox.stats.feedRequests == 2)
            #expect(harness.sandbox.stats.grantsIssued == ["password": 1, "refresh_token": 1])
        }
    }

    @Test("an authorization code is exchanged once, then the refresh token is used")
    func authorizationCode() async throws {
        try await SyncHarness.with(records: Fixtures.records(2)) { harness in
            let code = harness.sandbox.issueAuthorizationCode(for: SyncHarness.user, redirectURI: "http://localhost/callback")
            try await harness.store.addSource(Store.NewSource(
                name: harness.sourceName, url: harness.sandbox.baseURL,
                settings: SourceSettings(clientID: harness.sandbox.configuration.clientID, redirectURI: "http://localhost/callback"),
                secrets: SourceSecrets(clientSecret: harness.sandbox.configuration.clientSecret, authorizationCode: code)), replacing: true)
            #expect(try await harness.sync().state == .done)
            #expect(harness.sandbox.stats.grantsIssued == ["authorization_code": 1])
            let source = try await harness.source
            #expect(try await harness.store.sourceCredentials(id: source.id)?.secrets.authorizationCode == nil)
            harness.sandbox.expireAccessTokens()
            #expect(try await harness.sync().state == .done)
            #expect(harness.sandbox.stats.grantsIssued == ["authorization_code": 1, "refresh_token": 1])
        }
    }

    @Test("a wrong client secret needs sign-in")
    func wrongClient() async throws {
        try await SyncHarness.with(records: Fixtures.records(1)) { harness in
            var source = harness.passwordSource()
            source.secrets.clientSecret = "wrong"
            try await harness.store.addSource(source, replacing: true)
            let job = try await harness.sync()
            #expect(job.state == .needsSignIn && job.lastError?.contains("invalid_client") == true)
        }
    }
}
