import Foundation
import Testing
@testable import ImportJobs
import HealthRecord
import Records
@testable import RHExClient
import SyntheticRecords

@Suite("The HTTP fetcher's session")
struct HTTPFetcherTests {
    @Test("a fetcher that was closed refuses to fetch, with a clear error, and never starts a session again")
    func closedRefuses() async throws {
        let fetcher = HTTPFetcher(timeoutSeconds: 1, maxConnectionsPerHost: 1)
        fetcher.close()  // before any request: nothing was started, nothing to cancel
        var request = HTTPRequest(url: try #require(URL(string: "http://127.0.0.1:9/feed")))
        request.httpMethod = "GET"
        await #expect(throws: SyncError.stopped) { try await fetcher.fetch(request, limit: 1_024) }
    }
}
