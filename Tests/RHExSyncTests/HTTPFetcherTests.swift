import Foundation
import Testing
@testable import ImportJobs
import HealthRecord
import Records
@testable import RHExClient
import Synchronization
import SyntheticRecords
import TestSupport

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

/// Downloads into a file (the library's packs): resumed with `Range` after a cut, started over on a `200`,
/// stalls and error statuses ending clearly.
@Suite("The HTTP fetcher's downloads")
struct HTTPDownloadTests {
    static let size = 300_000

    /// A folder with one file of `size` bytes that differ from each other, served by a publisher.
    static func served() throws -> (TemporaryDirectory, PackPublisher, [UInt8]) {
        let dir = TemporaryDirectory("hreaderd-download")
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try dir.directory("served")
        try dir.file("served/pack.gz", bytes: bytes)
        return (dir, try PackPublisher(folder: dir.file("served")), bytes)
    }

    static func download(_ publisher: PackPublisher, into path: String, limit: Int64 = 10_000_000, stall: Double = 5) -> HTTPDownload {
        var download = HTTPDownload(url: URL(string: publisher.url + "/pack.gz")!, path: path, limit: limit)
        download.stallSeconds = stall
        download.deadlineSeconds = 30
        return download
    }

    static func contents(_ path: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: path) ?? Data()) }

    @Test("a new file gets the whole body (200), progress rising to its size")
    func whole() async throws {
        let (dir, publisher, bytes) = try Self.served()
        defer { publisher.stop() }
        let fetcher = HTTPFetcher(timeoutSeconds: 5, maxConnectionsPerHost: 1)
        defer { fetcher.close() }
        let seen = Mutex<[Int64]>([])
        let result = try await fetcher.download(Self.download(publisher, into: dir.file("pack.gz"))) { done, total in
            #expect(total == Int64(Self.size))
            seen.withLock { $0.append(done) }
        }
        #expect(result == HTTPDownloaded(status: 200, bytes: Int64(Self.size), resumedFrom: 0))
        #expect(Self.contents(dir.file("pack.gz")) == bytes)
        #expect(seen.withLock { $0.last } == Int64(Self.size))
        #expect(publisher.requests(for: "pack.gz").map(\.range) == [nil])
    }

    @Test("a download cut halfway keeps what came; the next asks for the rest with Range and gets it (206)")
    func resumeAfterCut() async throws {
        let (dir, publisher, bytes) = try Self.served()
        defer { publisher.stop() }
        publisher.setFault(.cutAfter(bytes: Self.size / 2, times: 1), for: "pack.gz")
        let fetcher = HTTPFetcher(timeoutSeconds: 5, maxConnectionsPerHost: 1)
        defer { fetcher.close() }
        let path = dir.file("pack.gz")
        await #expect(throws: SyncError.truncated(url: publisher.url + "/pack.gz", received: Self.size / 2, expected: Self.size)) {
            try await fetcher.download(Self.download(publisher, into: path))
        }
        #expect(Self.contents(path) == Array(bytes.prefix(Self.size / 2)))
        let result = try await fetcher.download(Self.download(publisher, into: path))
        #expect(result == HTTPDownloaded(status: 206, bytes: Int64(Self.size), resumedFrom: Int64(Self.size / 2)))
        #expect(Self.contents(path) == bytes)
        #expect(publisher.requests(for: "pack.gz").map(\.range) == [nil, "bytes=\(Self.size / 2)-"])
    }

    @Test("a 200 to a Range request writes the file from the start")
    func restartOn200() async throws {
        let (dir, publisher, bytes) = try Self.served()
        defer { publisher.stop() }
        let path = dir.file("pack.gz")
        try dir.file("pack.gz", bytes: Array(repeating: 0xEE, count: 1000))  // not the body's first bytes
        publisher.setFault(.ignoreRange, for: "pack.gz")
        let fetcher = HTTPFetcher(timeoutSeconds: 5, maxConnectionsPerHost: 1)
        defer { fetcher.close() }
        let result = try await fetcher.download(Self.download(publisher, into: path))
        #expect(result == HTTPDownloaded(status: 200, bytes: Int64(Self.size), resumedFrom: 0))
        #expect(Self.contents(path) == bytes)
        #expect(publisher.requests(for: "pack.gz").map(\.range) == ["bytes=1000-"])
    }

    @Test("an error status leaves the file as it was")
    func errorStatus() async throws {
        let (dir, publisher, _) = try Self.served()
        defer { publisher.stop() }
        let path = dir.file("pack.gz")
        try dir.file("pack.gz", bytes: [1, 2, 3])
        publisher.setFault(.status(500), for: "pack.gz")
        let fetcher = HTTPFetcher(timeoutSeconds: 5, maxConnectionsPerHost: 1)
        defer { fetcher.close() }
        await #expect(throws: SyncError.status(url: publisher.url + "/pack.gz", code: 500)) {
            try await fetcher.download(Self.download(publisher, into: path))
        }
        #expect(Self.contents(path) == [1, 2, 3])
    }

    @Test("a server that never answers ends as stalled at the stall limit, not at the download's deadline")
    func stall() async throws {
        let (dir, publisher, _) = try Self.served()
        defer { publisher.stop() }
        publisher.setFault(.hang, for: "pack.gz")
        // The deadline far beyond the stall limit: only the stall limit can end this download as `stalled`.
        let fetcher = HTTPFetcher(timeoutSeconds: 600, maxConnectionsPerHost: 1)
        defer { fetcher.close() }
        do {
            _ = try await fetcher.download(Self.download(publisher, into: dir.file("pack.gz"), stall: 1))
            Issue.record("the download of a hanging server succeeded")
        } catch {
            guard case let .stalled(_, seconds) = error else { Issue.record("not a stall: \(error)"); return }
            #expect(seconds == 1)
            #expect(error.description.contains("nothing received from") && error.isTransient)
        }
    }

    @Test("a body larger than the limit is refused")
    func tooLarge() async throws {
        let (dir, publisher, _) = try Self.served()
        defer { publisher.stop() }
        let fetcher = HTTPFetcher(timeoutSeconds: 5, maxConnectionsPerHost: 1)
        defer { fetcher.close() }
        await #expect(throws: SyncError.tooLarge(url: publisher.url + "/pack.gz", limit: 1000)) {
            try await fetcher.download(Self.download(publisher, into: dir.file("pack.gz"), limit: 1000))
        }
    }

    @Test("Content-Range is read as start and total", arguments: [
        ("bytes 100-199/1000", 100, 1000), ("bytes 0-0/1", 0, 1), ("bytes 5-9/*", 5, nil), ("BYTES 7-8/9", 7, 9),
    ] as [(String, Int64, Int64?)])
    func contentRange(_ header: String, _ start: Int64, _ total: Int64?) {
        let range = DownloadSink.contentRange(header)
        #expect(range?.start == start && range?.total == total)
    }

    @Test("a Content-Range that is not one is nil", arguments: ["", "bytes", "bytes */1000", "items 1-2/3", "bytes x-2/3"])
    func badContentRange(_ header: String) {
        #expect(DownloadSink.contentRange(header) == nil)
    }
}
