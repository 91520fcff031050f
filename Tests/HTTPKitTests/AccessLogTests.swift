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

    /// The access lines' messages, once there are `count` of them (or after 5 s).
    func accessLines(atLeast count: Int) async -> [String] {
        for _ in 0..<1000 {
            let lines = self.all.filter { $0.metadata["http.status"] != nil }.map(\.message)
            if lines.count >= count { return lines }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return self.all.filter { $0.metadata["http.status"] != nil }.map(\.message)
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

    @Test("an answer up to the hand-over size is logged at once; a larger one once the client has read it")
    func loggedWhenWritten() async throws {
        let edge = HTTPConnectionHandler.loggedAtHandOverBytes
        #expect(edge == ResponseEncoder.coalescedBodyBytes)
        let big = 48 << 20  // more than loopback's socket buffers hold
        let log = CapturedLog()
        var router = demoRouter()
        router.get("/edge") { _, _ in Response(status: .ok, body: .bytes(ByteBuffer(repeating: 0x61, count: edge))) }
        router.get("/over") { _, _ in Response(status: .ok, body: .bytes(ByteBuffer(repeating: 0x61, count: edge + 1))) }
        router.get("/big") { _, _ in Response(status: .ok, body: .bytes(ByteBuffer(repeating: 0x61, count: big))) }
        try await withServer(testConfiguration { $0.accessLogLevel = .notice }, router: router, logger: log.logger) { server in
            let client = try await RawClient.connect(to: server.address, reading: false)
            try await client.send(http("GET /edge HTTP/1.1", "Host: x") + http("GET /over HTTP/1.1", "Host: x"))
            let small = await log.accessLines(atLeast: 2)
            #expect(small.count == 2 && small[0].hasPrefix("GET /edge 200 \(edge)B ") && small[1].hasPrefix("GET /over 200 \(edge + 1)B "))
            try await client.send(http("GET /big HTTP/1.1", "Host: x"))
            try await Task.sleep(for: .milliseconds(400))
            #expect(await log.accessLines(atLeast: 0).count == 2, "logged before the client read it")
            try await client.startReading()
            let answers = try await client.responses(3, timeout: .seconds(30))
            #expect(answers.map(\.body.count) == [edge, edge + 1, big])
            let all = await log.accessLines(atLeast: 3)
            #expect(all.count == 3 && all[2].hasPrefix("GET /big 200 \(big)B "))
            await client.close()
        }
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

    /// The message as it was formatted before it was written as bytes (a `String` built piece by piece).
    static func formattedAsBefore(method: HTTPMethod?, path: String?, status: HTTPResponseStatus, bytes: Int, micros: Int64) -> String {
        var message = method?.rawValue ?? "-"
        message += " "; message += path.map(AccessLog.printable) ?? "-"; message += " "; message += String(status.code)
        message += " "; message += String(bytes)
        message += "B "; message += String(micros / 1000); message += "."; message += String(micros % 1000 / 100); message += "ms"
        return message
    }

    @Test("the message written as bytes is the one formatted as a string, byte for byte")
    func bytesAsBefore() {
        let paths: [String?] = ["/timeline.json", nil, "/", "/a\u{1b}b", "/é%20x", String(repeating: "p", count: 300)]
        let methods: [HTTPMethod?] = [.GET, .POST, .DELETE, nil, .RAW(value: "PROPFIND")]
        let statuses: [HTTPResponseStatus] = [.ok, .notFound, .continue, .custom(code: 599, reasonPhrase: "x")]
        let sizes = [0, 5, 13_699, Int.max]
        let durations: [Int64] = [0, 99, 100, 999, 1_000, 1_050, 123_456, 86_400_000_000]
        for method in methods {
            for path in paths {
                for (index, status) in statuses.enumerated() {
                    for bytes in sizes {
                        let micros = durations[(index + bytes % 7 + (path?.count ?? 0)) % durations.count]
                        var line: [UInt8] = []
                        AccessLog.appendMessage(method: method, path: path, status: status, bytes: bytes, micros: micros, to: &line)
                        let before = Self.formattedAsBefore(method: method, path: path, status: status, bytes: bytes, micros: micros)
                        #expect(line == Array(before.utf8))
                    }
                }
            }
        }
        for micros in durations {
            var line: [UInt8] = []
            AccessLog.appendMessage(method: .GET, path: "/x", status: .ok, bytes: 1, micros: micros, to: &line)
            #expect(line == Array(Self.formattedAsBefore(method: .GET, path: "/x", status: .ok, bytes: 1, micros: micros).utf8))
        }
    }

    @Test("decimal numbers as String(_:) writes them, at the edges of Int64")
    func decimals() {
        for value: Int64 in [0, 1, 9, 10, 99, 100, 1_000_000, -1, -10, .max, .min, .max - 1, .min + 1] {
            let line = [UInt8](unsafeUninitializedCapacity: 21) { buffer, count in
                count = AccessLog.writeDecimal(value, to: buffer, at: 0)
            }
            #expect(String(decoding: line, as: UTF8.self) == String(value))
        }
    }

    /// Collects what an `AccessLogOutput` is given.
    final class CollectedLines: AccessLogOutput {
        private let lines = NIOLockedValueBox<[(Logger.Level, String)]>([])
        var all: [(Logger.Level, String)] { self.lines.withLockedValue { $0 } }

        func writeLine(level: Logger.Level, appendMessage: (inout [UInt8]) -> Void) {
            var message: [UInt8] = []
            appendMessage(&message)
            self.lines.withLockedValue { $0.append((level, String(decoding: message, as: UTF8.self))) }
        }
    }

    @Test("with an output, the line goes there, not to the logger, at the access log's level and only when the logger lets it through")
    func output() async throws {
        let lines = CollectedLines()
        let log = CapturedLog()
        try await withServer(testConfiguration { $0.accessLogLevel = .notice; $0.accessLogOutput = lines }, logger: log.logger) { server in
            _ = try await server.roundTrip(http("GET /hello?secret=QUERYSECRET HTTP/1.1", "Host: x", "Authorization: Bearer AUTHSECRET"))
            _ = try await server.roundTrip(http("GET /missing HTTP/1.1", "Host: x"))
        }
        #expect(log.all.filter { $0.metadata["http.status"] != nil }.isEmpty)
        let written = lines.all
        #expect(written.count == 2)
        #expect(written.allSatisfy { $0.0 == .notice })
        #expect(written.first?.1.hasPrefix("GET /hello 200 5B ") == true)
        #expect(written.last?.1.hasPrefix("GET /missing 404 ") == true)
        #expect(written.allSatisfy { !$0.1.contains("SECRET") && $0.1.hasSuffix("ms") })

        // A logger at warning lets no notice through: nothing is written.
        let quiet = CollectedLines()
        var warning = log.logger
        warning.logLevel = .warning
        try await withServer(testConfiguration { $0.accessLogLevel = .notice; $0.accessLogOutput = quiet }, logger: warning) { server in
            _ = try await server.roundTrip(http("GET /hello HTTP/1.1", "Host: x"))
        }
        #expect(quiet.all.isEmpty)
    }

    @Test("unprintable or very long paths are logged safely")
    func printable() {
        #expect(AccessLog.printable("/a\u{1b}[31mb") == "/a?[31mb")
        #expect(AccessLog.printable(String(repeating: "a", count: 1000)).count == 257)
    }
}
