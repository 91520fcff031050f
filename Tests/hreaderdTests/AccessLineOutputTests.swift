import Foundation
import Logging
import Synchronization
import Testing
@testable import hreaderd

/// The access log's lines, written as bytes straight into the log's queue, read as every other line does.
@Suite("Access lines as bytes")
struct AccessLineOutputTests {
    /// Collects what is queued.
    final class Queue: Sendable {
        private let bytes = Mutex<[UInt8]>([])
        var text: String { bytes.withLock { String(decoding: $0, as: UTF8.self) } }
        func append(_ appendLine: (inout [UInt8]) -> Void) { bytes.withLock { appendLine(&$0) } }
    }

    func output(toJournal: Bool, into queue: Queue) -> AccessLineOutput {
        AccessLineOutput(toJournal: toJournal, write: { queue.append($0) })
    }

    /// The line `LineLogHandler` writes for `message` at `level`, as the access log wrote it through its `Logger`
    /// (with its http.* fields, which the handler leaves out).
    func handlerLine(_ message: String, level: Logger.Level, toJournal: Bool) -> String {
        let lines = Mutex<[String]>([])
        var handler = LineLogHandler(logLevel: .trace, toJournal: toJournal)
        handler.output = { line in lines.withLock { $0.append(line) } }
        handler.log(event: LogEvent(level: level, message: "\(message)", metadata: [
            "http.method": "GET", "http.path": "/x", "http.status": "200", "http.bytes": "5", "http.duration_us": "12",
        ], source: "HTTPKit", file: #fileID, function: #function, line: #line))
        return lines.withLock { $0.joined() }
    }

    static let messages = ["GET /timeline.json 200 13699B 0.3ms", "- - 400 0B 0.0ms", "POST /a?b 413 93B 12.5ms", "RAW x\ny 200 0B 1.0ms"]

    @Test("for the journal, the line is LineLogHandler's, byte for byte", arguments: [Logger.Level.info, .notice, .debug, .error])
    func journal(_ level: Logger.Level) {
        for message in Self.messages {
            let queue = Queue()
            output(toJournal: true, into: queue).writeLine(level: level) { $0.append(contentsOf: message.utf8) }
            #expect(queue.text == handlerLine(message, level: level, toJournal: true))
        }
    }

    @Test("on a terminal or in a file, the line is LineLogHandler's but for the time it was written")
    func terminal() throws {
        for message in Self.messages {
            let queue = Queue()
            output(toJournal: false, into: queue).writeLine(level: .info) { $0.append(contentsOf: message.utf8) }
            let line = queue.text
            let expected = handlerLine(message, level: .info, toJournal: false)
            // 2026-11-26T20:30:00.123Z: 24 characters, then the same.
            #expect(line.dropFirst(24) == expected.dropFirst(24))
            let time = String(line.prefix(24))
            #expect(time.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "\(time)")
            #expect(line.hasSuffix("\n") && line.dropLast().contains("\n") == false)
        }
    }

    @Test("the timestamp as bytes is the timestamp as text")
    func timestamp() {
        var bytes: [UInt8] = []
        LineLogHandler.appendTimestamp(to: &bytes)
        let text = LineLogHandler.timestamp()
        for time in [String(decoding: bytes, as: UTF8.self), text] {
            #expect(time.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "\(time)")
        }
    }

    @Test("lines appended straight into the writer come out whole, and beyond its limit are dropped and counted")
    func writerAppending() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let writer = LogLineWriter(fileDescriptor: fds[1], maximumPendingBytes: 1_000)
        let output = AccessLineOutput(toJournal: true, write: { writer.write(appending: $0) })
        for i in 0..<20 {
            output.writeLine(level: .info) { $0.append(contentsOf: "GET /\(i) 200 5B 0.1ms".utf8) }
        }
        // 30 bytes each, at most 1,000 pending: whatever the writer thread took meanwhile, none is cut.
        writer.flush()
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = read(fds[0], &buffer, buffer.count)
        let text = String(decoding: buffer[..<max(0, count)], as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(lines.first == "<6>GET /0 200 5B 0.1ms")
        #expect(lines.allSatisfy { $0.hasPrefix("<6>GET /") && $0.hasSuffix(" 200 5B 0.1ms") || $0.hasSuffix("log lines dropped: stderr did not keep up") })
        let big = AccessLineOutput(toJournal: true, write: { writer.write(appending: $0) })
        big.writeLine(level: .info) { $0.append(contentsOf: [UInt8](repeating: UInt8(ascii: "a"), count: 2_000)) }
        writer.flush()
        let after = read(fds[0], &buffer, buffer.count)
        let report = String(decoding: buffer[..<max(0, after)], as: UTF8.self)
        #expect(report == "1 log lines dropped: stderr did not keep up\n")
    }
}
