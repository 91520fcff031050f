import Foundation
import Testing
@testable import hreaderd

@Suite("The daemon's log writer")
struct LogLineWriterTests {
    /// Everything readable from `fd` now, without waiting.
    func drain(_ fd: Int32) -> String {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("lines come out whole and in order; flush writes what is queued")
    func inOrder() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }  // the write end stays open: the writer's thread lives on
        let writer = LogLineWriter(fileDescriptor: fds[1])
        for i in 0..<1_000 { writer.write("line \(i)\n") }
        writer.flush()
        let lines = drain(fds[0]).split(separator: "\n").map(String.init)
        #expect(lines == (0..<1_000).map { "line \($0)" })
    }

    @Test("when the output does not keep up, lines beyond the limit are dropped and counted, and writing never blocks")
    func dropsWhenFull() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let writer = LogLineWriter(fileDescriptor: fds[1], maximumPendingBytes: 4_096)
        // Nobody reads yet: the pipe (64 KiB) fills, the writer's thread blocks on it, and the queue fills.
        let line = String(repeating: "x", count: 99) + "\n"
        let started = Date()
        for _ in 0..<5_000 { writer.write(line) }  // 500 KB
        #expect(Date().timeIntervalSince(started) < 10, "write() returned although stderr was stuck")

        // Read everything from another thread until the report of what was dropped arrives.
        let done = DispatchSemaphore(value: 0)
        let output = Output()
        let readEnd = fds[0]
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !output.text.contains("log lines dropped") {
                let count = read(readEnd, &buffer, buffer.count)
                if count <= 0 { break }
                output.append(buffer[..<count])
            }
            done.signal()
        }
        reader.start()
        writer.flush()
        #expect(done.wait(timeout: .now() + 30) == .success)
        let text = output.text
        let written = text.split(separator: "\n").filter { $0.hasPrefix("xxx") }.count
        let dropped = try #require(text.split(separator: "\n").last.flatMap { Int($0.split(separator: " ")[0]) })
        #expect(dropped > 0)
        #expect(written + dropped == 5_000, "every line is either written or counted")
        #expect(written * 100 <= 64 * 1_024 + 2 * 4_096, "no more than the pipe, one batch and the queue held")
    }

    final class Output: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: [UInt8] = []
        func append(_ more: ArraySlice<UInt8>) { lock.withLock { bytes += more } }
        var text: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }
    }
}
