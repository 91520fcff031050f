import HTTPKit
import TestSupport
import Testing

/// A deterministic pseudo-random generator (SplitMix64), so that a failure can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Valid requests, and ways to break them.
enum Fuzz {
    static let templates: [String] = [
        "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n",
        "HEAD /hello HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n",
        "GET /query?a=1&b=%20x&a=2 HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /echo-path/abc%20def HTTP/1.1\r\nHost: x\r\nUser-Agent: fuzz\r\n\r\n",
        "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 11\r\n\r\nkey=value&a",
        "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n3\r\nefg\r\n0\r\n\r\n",
        "POST /small HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
        "GET /files/index.html HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"x\"\r\n\r\n",
        "GET /files/ HTTP/1.1\r\nHost: x\r\n\r\n",
        "PUT /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
        "DELETE /hello HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /hello HTTP/1.0\r\n\r\n",
        "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
    ]

    static let nasty: [[UInt8]] = [
        Array("\r\n".utf8), Array("\n".utf8), [0], Array(" ".utf8), Array(":".utf8), Array("%".utf8), Array("%00".utf8),
        Array("/../".utf8), Array("\r\n\r\n".utf8), Array("Content-Length: 99999999999999999999\r\n".utf8),
        Array("Transfer-Encoding: chunked\r\n".utf8), Array("Content-Length: 3\r\n".utf8), [0xFF, 0xFE], [0x7F],
        Array(String(repeating: "A", count: 5000).utf8), Array("\u{0b}".utf8), Array("\t".utf8),
    ]

    static func mutate(_ input: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        let rounds = Int.random(in: 1...3, using: &random)
        for _ in 0..<rounds {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<8, using: &random) {
            case 0 where !bytes.isEmpty:  // flip a bit
                bytes[position] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
            case 1:  // insert random bytes
                bytes.insert(contentsOf: (0..<Int.random(in: 1...8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }, at: position)
            case 2 where !bytes.isEmpty:  // delete a range
                let end = min(bytes.count, position + Int.random(in: 1...16, using: &random))
                bytes.removeSubrange(position..<end)
            case 3 where !bytes.isEmpty:  // duplicate a range
                let end = min(bytes.count, position + Int.random(in: 1...32, using: &random))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            case 4:  // truncate
                bytes = Array(bytes.prefix(position))
            case 5:  // insert something nasty
                bytes.insert(contentsOf: nasty.randomElement(using: &random)!, at: position)
            case 6:  // pure garbage
                bytes = (0..<Int.random(in: 1...200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            default:  // replace a byte with a delimiter
                if !bytes.isEmpty { bytes[position] = [UInt8(ascii: ":"), 13, 10, 32, 0][Int.random(in: 0..<5, using: &random)] }
            }
        }
        return bytes
    }
}

@Suite("Robustness")
struct RobustnessTests {
    /// The status of every status line in `bytes` (bodies here never contain one).
    static func statusCodes(in bytes: [UInt8]) -> [Int] {
        let marker = Array("HTTP/1.".utf8)
        var codes: [Int] = []
        var index = 0
        while index + 13 <= bytes.count {
            if Array(bytes[index..<(index + 7)]) == marker, bytes[index + 8] == 32, bytes[index + 12] == 32,
                let code = Int(String(decoding: bytes[(index + 9)..<(index + 12)], as: UTF8.self))
            {
                codes.append(code)
                index += 13
            } else {
                index += 1
            }
        }
        return codes
    }

    @Test("thousands of random and mutated requests leave the server answering correctly, with no connection left open")
    func fuzz() async throws {
        let directory = TemporaryDirectory("httpkit-tests")
        defer { directory.remove() }
        try directory.file("root/index.html", "<h1>home</h1>")
        var router = demoRouter()
        router.mount("/files/", files: try FileServer(root: directory.path + "/root"))
        let configuration = testConfiguration {
            $0.limits.requestHeadTimeout = .milliseconds(400)
            $0.limits.requestBodyTimeout = .milliseconds(400)
            $0.limits.keepAliveTimeout = .milliseconds(400)
            $0.limits.lingeringCloseTimeout = .milliseconds(400)
            $0.limits.maxHeaderBytes = 4096
            $0.limits.maxHeaderCount = 40
            $0.limits.maxBodyBytes = 2048
        }
        let closer = Array("GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)

        try await withServer(configuration, router: router) { server in
            struct Outcome: Sendable {
                var requests = 0
                var statuses: [Int: Int] = [:]
                var notClosed = 0
                var garbage = 0
            }
            let connections = 2400
            let parallel = 16
            let outcome = try await withThrowingTaskGroup(of: Outcome.self) { group in
                for worker in 0..<parallel {
                    group.addTask {
                        var random = SeededGenerator(state: 0xC0FFEE &+ UInt64(worker))
                        var outcome = Outcome()
                        for _ in stride(from: worker, to: connections, by: parallel) {
                            var payload: [UInt8] = []
                            for _ in 0..<Int.random(in: 1...4, using: &random) {
                                let template = Array(Fuzz.templates.randomElement(using: &random)!.utf8)
                                payload += Bool.random(using: &random) ? Fuzz.mutate(template, using: &random) : template
                                outcome.requests += 1
                            }
                            payload += closer
                            let client = try await server.connect()
                            // Sent in up to three pieces, to cut requests at random places.
                            var rest = payload[...]
                            while !rest.isEmpty {
                                let size = Bool.random(using: &random) ? rest.count : Int.random(in: 1...rest.count, using: &random)
                                try? await client.send(bytes: Array(rest.prefix(size)))
                                rest = rest.dropFirst(size)
                            }
                            // The server must end every connection by itself: after the closing
                            // request, or by an error answer, or by a timeout.
                            if !(await client.waitUntilClosed(timeout: .seconds(10))) { outcome.notClosed += 1 }
                            let received = client.pendingBytes
                            for status in Self.statusCodes(in: received) {
                                outcome.statuses[status, default: 0] += 1
                            }
                            let start = String(decoding: received.prefix(9), as: UTF8.self)
                            if !received.isEmpty && !(start == "HTTP/1.1 " || start == "HTTP/1.0 ") {
                                outcome.garbage += 1
                            }
                            await client.close()
                        }
                        return outcome
                    }
                }
                var total = Outcome()
                for try await part in group {
                    total.requests += part.requests
                    total.notClosed += part.notClosed
                    total.garbage += part.garbage
                    total.statuses.merge(part.statuses, uniquingKeysWith: +)
                }
                return total
            }

            print("robustness: \(outcome.requests) requests on \(connections) connections; answers by status: \(outcome.statuses.sorted { $0.key < $1.key })")
            #expect(outcome.requests >= 5000)
            #expect(outcome.notClosed == 0)
            #expect(outcome.garbage == 0)
            #expect(outcome.statuses[200, default: 0] > 100)
            #expect(outcome.statuses[400, default: 0] > 100)
            #expect(Set(outcome.statuses.keys).isSubset(of: [200, 301, 304, 400, 404, 405, 413, 417, 431, 505]), "\(outcome.statuses)")

            // Still healthy: a normal request is answered correctly, and nothing leaked.
            let response = try await server.roundTrip(http("GET /echo-path/after HTTP/1.1", "Host: x"))
            #expect(response.bodyText == "after|/echo-path/after")
            #expect(await server.waitForNoConnections())
        }
    }
}
