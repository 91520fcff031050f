@testable import HTTPKit
import Logging
import NIOConcurrencyHelpers
import Testing

/// Collects log records in memory.
final class CapturedLog: Sendable {
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
        var all: String { self.message + " " + self.metadata.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ") }
    }

    private let records = NIOLockedValueBox<[Record]>([])

    var all: [Record] { self.records.withLockedValue { $0 } }

    var logger: Logger {
        Logger(label: "test") { _ in Handler(log: self) }
    }

    /// Waits until `count` records are in (they are written after the response).
    func waitFor(_ count: Int) async -> [Record] {
        for _ in 0..<1000 {
            let records = self.all
            if records.count >= count { return records }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return self.all
    }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { self.metadata[key] }
            set { self.metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = self.metadata.merging(event.metadata ?? [:]) { $1 }
            let record = Record(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" })
            self.log.records.withLockedValue { $0.append(record) }
        }
    }
}

@Suite("Access log")
struct AccessLogTests {
    @Test("one line per request: method, path, status, bytes, duration")
    func line() async throws {
        let log = CapturedLog()
        try await withServer(testConfiguration { $0.accessLogLevel = .notice }, logger: log.logger) { server in
            _ = try await server.roundTrip(http("GET /hello HTTP/1.1", "Host: x"))
        }
        let access = log.all.filter { $0.metadata["http.status"] != nil }
        #expect(access.count == 1)
        let record = try #require(access.first)
        #expect(record.level == .notice)
        #expect(record.message.hasPrefix("GET /hello 200 5B "))
        #expect(record.metadata["http.method"] == "GET")
        #expect(record.metadata["http.path"] == "/hello")
        #expect(record.metadata["http.bytes"] == "5")
        #expect(record.metadata["http.duration_us"].flatMap { Int($0) } != nil)
    }

    @Test("never a query string, a body, Authorization or Cookie")
    func noSecrets() async throws {
        let log = CapturedLog()
        try await withServer(logger: log.logger) { server in
            _ = try await server.roundTrip(http(
                "GET /query?key=QUERYSECRET&token=abc HTTP/1.1", "Host: x",
                "Authorization: Bearer AUTHSECRET", "Cookie: session=COOKIESECRET"))
            _ = try await server.roundTrip(
                http("POST /upload?password=QUERYSECRET HTTP/1.1", "Host: x", "Content-Length: 10") + "BODYSECRET")
            _ = try await server.roundTrip(http("GET /missing?x=QUERYSECRET HTTP/1.1", "Host: x"))
            _ = try await server.roundTrip(http("GET /bad?x=QUERYSECRET HTTP/1.1", "Host x"))
        }
        let records = log.all.filter { $0.metadata["http.status"] != nil }
        #expect(records.count == 4)
        #expect(records.map { $0.metadata["http.status"] ?? "" }.sorted() == ["200", "200", "400", "404"])
        for record in log.all {
            for secret in ["QUERYSECRET", "AUTHSECRET", "COOKIESECRET", "BODYSECRET", "token", "password"] {
                #expect(!record.all.contains(secret), "\(record.all)")
            }
        }
        #expect(records.contains { $0.message.hasPrefix("GET /query 200") })
        #expect(records.contains { $0.message.hasPrefix("POST /upload 200") })
    }

    @Test("unprintable or very long paths are logged safely")
    func printable() {
        #expect(AccessLog.printable("/a\u{1b}[31mb") == "/a?[31mb")
        #expect(AccessLog.printable(String(repeating: "a", count: 1000)).count == 257)
    }
}
