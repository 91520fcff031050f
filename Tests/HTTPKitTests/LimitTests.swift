import HTTPKit
import NIOConcurrencyHelpers
import Testing

/// Every limit at its edge: at the limit passes, one over fails with the right answer or a close.
@Suite("Limits")
struct LimitTests {
    // NIO counts the request target plus each header name and value, without separators.
    // "/hello" (6) + "Host" (4) + "x" (1) + "X-Pad" (5) = 16, plus the padding.
    @Test("header bytes: at the limit is answered, one byte over is 431", arguments: [(184, 200), (185, 431)])
    func headerBytes(padding: Int, status: Int) async throws {
        try await withServer(testConfiguration { $0.limits.maxHeaderBytes = 200 }) { server in
            let client = try await server.connect()
            try await client.send(http("GET /hello HTTP/1.1", "Host: x", "X-Pad: " + String(repeating: "a", count: padding)))
            let response = try await client.response()
            #expect(response.status == status)
            if status == 431 {
                #expect(response.bodyText.contains(#""code":"headers_too_large""#))
                #expect(await client.waitUntilClosed())
            }
            await client.close()
        }
    }

    @Test("header count: at the limit is answered, one more field is 431", arguments: [(4, 200), (5, 431)])
    func headerCount(extra: Int, status: Int) async throws {
        try await withServer(testConfiguration { $0.limits.maxHeaderCount = 5 }) { server in
            let fields = ["Host: x"] + (0..<extra).map { "X-Field-\($0): v" }
            let response = try await server.roundTrip(http(["GET /hello HTTP/1.1"] + fields))
            #expect(response.status == status)
        }
    }

    @Test("a route's body limit: at the limit is read, one byte over is 413 and closed", arguments: [(10, 200), (11, 413)])
    func routeBodyLimit(size: Int, status: Int) async throws {
        try await withServer { server in
            let client = try await server.connect()
            try await client.send(
                http("POST /small HTTP/1.1", "Host: x", "Content-Length: \(size)") + String(repeating: "b", count: size))
            let response = try await client.response()
            #expect(response.status == status)
            if status == 200 {
                #expect(response.bodyText == "\(size)")
            } else {
                #expect(response.bodyText.contains(#""code":"body_too_large""#))
                #expect(response.closesConnection)
                #expect(await client.waitUntilClosed())
            }
            await client.close()
        }
    }

    @Test("a chunked body is held to the same limit as it arrives", arguments: [(10, 200), (11, 413)])
    func chunkedBodyLimit(size: Int, status: Int) async throws {
        try await withServer { server in
            let first = String(repeating: "c", count: 5)
            let second = String(repeating: "d", count: size - 5)
            let body = "5\r\n\(first)\r\n\(String(size - 5, radix: 16))\r\n\(second)\r\n0\r\n\r\n"
            let response = try await server.roundTrip(
                http("POST /small HTTP/1.1", "Host: x", "Transfer-Encoding: chunked") + body)
            #expect(response.status == status)
        }
    }

    @Test("routes without their own limit use maxBodyBytes", arguments: [(20, 200), (21, 413)])
    func defaultBodyLimit(size: Int, status: Int) async throws {
        try await withServer(testConfiguration { $0.limits.maxBodyBytes = 20 }) { server in
            let response = try await server.roundTrip(
                http("POST /upload HTTP/1.1", "Host: x", "Content-Length: \(size)") + String(repeating: "u", count: size))
            #expect(response.status == status)
        }
    }

    @Test("a body over the limit is refused from Content-Length alone, before it is sent")
    func earlyRefusal() async throws {
        try await withServer { server in
            let client = try await server.connect()
            try await client.send(http("POST /small HTTP/1.1", "Host: x", "Content-Length: 1000000"))
            let response = try await client.response()
            #expect(response.status == 413)
            #expect(await client.waitUntilClosed())
        }
    }

    @Test("connections: the limit is served, one more gets 503 and a close, and a freed slot is reusable")
    func maxConnections() async throws {
        try await withServer(testConfiguration { $0.limits.maxConnections = 2 }) { server in
            let first = try await server.connect()
            let second = try await server.connect()
            for client in [first, second] {
                try await client.send(http("GET /hello HTTP/1.1", "Host: x"))
                #expect(try await client.response().status == 200)
            }
            let third = try await server.connect()
            let refused = try await third.response()
            #expect(refused.status == 503)
            #expect(refused.closesConnection)
            #expect(refused.header("X-Content-Type-Options") == "nosniff")
            #expect(await third.waitUntilClosed())
            #expect(server.server.connectionCount == 2)

            await first.close()
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(10)
            while server.server.connectionCount > 1 && clock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            let fourth = try await server.connect()
            try await fourth.send(http("GET /hello HTTP/1.1", "Host: x"))
            #expect(try await fourth.response().status == 200)
            await second.close()
            await fourth.close()
        }
    }

    @Test("requests per connection: the last allowed one says Connection: close, and no more are answered")
    func requestsPerConnection() async throws {
        try await withServer(testConfiguration { $0.limits.maxRequestsPerConnection = 3 }) { server in
            let client = try await server.connect()
            let request = http("GET /hello HTTP/1.1", "Host: x")
            try await client.send(String(repeating: request, count: 4))
            let responses = try await client.responses(3)
            #expect(responses.map(\.status) == [200, 200, 200])
            #expect(responses.map(\.closesConnection) == [false, false, true])
            #expect(await client.waitUntilClosed())
            #expect(client.pendingBytes.isEmpty)
        }
    }

    @Test("slow-loris: a connection that sends nothing is closed after the head timeout")
    func silentConnection() async throws {
        try await withServer(testConfiguration { $0.limits.requestHeadTimeout = .milliseconds(200) }) { server in
            let client = try await server.connect()
            #expect(await client.waitUntilClosed())
            #expect(client.pendingBytes.isEmpty)
        }
    }

    @Test("slow-loris: trickling header bytes does not extend the head timeout")
    func trickledHead() async throws {
        try await withServer(testConfiguration { $0.limits.requestHeadTimeout = .milliseconds(200) }) { server in
            let client = try await server.connect()
            try await client.send("GET /hello HTTP/1.1\r\n")
            var sent = 0
            while !client.isClosed && sent < 400 {
                try? await client.send("X-Drip-\(sent): 1\r\n")
                sent += 1
                try await Task.sleep(for: .milliseconds(25))
            }
            #expect(client.isClosed)
            #expect(client.pendingBytes.isEmpty)
        }
    }

    @Test("a head that arrives in pieces within the head timeout is answered")
    func headInPieces() async throws {
        try await withServer(testConfiguration { $0.limits.requestHeadTimeout = .seconds(10) }) { server in
            let client = try await server.connect()
            for piece in ["GET /hel", "lo HTTP/1.1\r\nHo", "st: x\r\n", "\r\n"] {
                try await client.send(piece)
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await client.response().status == 200)
            await client.close()
        }
    }

    @Test("an idle keep-alive connection is closed after the keep-alive timeout")
    func keepAliveTimeout() async throws {
        try await withServer(testConfiguration { $0.limits.keepAliveTimeout = .milliseconds(200) }) { server in
            let client = try await server.connect()
            try await client.send(http("GET /hello HTTP/1.1", "Host: x"))
            #expect(try await client.response().status == 200)
            #expect(await client.waitUntilClosed())
            #expect(client.pendingBytes.isEmpty)
        }
    }

    @Test("between requests the keep-alive timeout applies, not the head timeout")
    func idleIsNotSlowLoris() async throws {
        let configuration = testConfiguration {
            $0.limits.requestHeadTimeout = .milliseconds(150)
            $0.limits.keepAliveTimeout = .seconds(20)
        }
        try await withServer(configuration) { server in
            // The first head must beat the short head timeout from the accept; on a busy machine
            // it may not, which is not what this test is about, so try a few connections.
            var connected: RawClient?
            for _ in 0..<5 where connected == nil {
                let client = try await server.connect()
                try? await client.send(http("GET /hello HTTP/1.1", "Host: x"))
                if (try? await client.response())?.status == 200 { connected = client } else { await client.close() }
            }
            let client = try #require(connected)
            try await Task.sleep(for: .milliseconds(600))  // idle for four head timeouts
            #expect(!client.isClosed)
            try await client.send(http("GET /hello HTTP/1.1", "Host: x"))
            #expect(try await client.response().status == 200)
            await client.close()
        }
    }

    @Test("a body that stops arriving is closed after the body timeout")
    func bodyTimeout() async throws {
        try await withServer(testConfiguration { $0.limits.requestBodyTimeout = .milliseconds(200) }) { server in
            let client = try await server.connect()
            try await client.send(http("POST /upload HTTP/1.1", "Host: x", "Content-Length: 10") + "abc")
            #expect(await client.waitUntilClosed())
            #expect(client.pendingBytes.isEmpty)
        }
    }

    @Test("a client that pipelines large answers and reads none holds the server back, then is closed")
    func unreadAnswers() async throws {
        let calls = NIOLockedValueBox(0)
        let big = ByteBuffer(repeating: UInt8(ascii: "a"), count: 4 << 20)
        var router = Router()
        router.get("/big") { _, _ in
            calls.withLockedValue { $0 += 1 }
            return Response(status: .ok, body: .bytes(big))
        }
        let configuration = testConfiguration {
            $0.limits.responseWriteTimeout = .milliseconds(300)
            $0.limits.keepAliveTimeout = .seconds(60)
        }
        try await withServer(configuration, router: router) { server in
            // A reader gets every answer.
            let reader = try await server.connect()
            try await reader.send(String(repeating: http("GET /big HTTP/1.1", "Host: x"), count: 3))
            let answers = try await reader.responses(3)
            #expect(answers.map(\.body.count) == [4 << 20, 4 << 20, 4 << 20])
            await reader.close()
            #expect(await server.waitForNoConnections())

            // One that never reads: the server stops answering once the socket buffers are
            // full, and closes the connection after the write timeout.
            calls.withLockedValue { $0 = 0 }
            let stalled = try await RawClient.connect(to: server.address, reading: false)
            try await stalled.send(String(repeating: http("GET /big HTTP/1.1", "Host: x"), count: 100))
            #expect(await server.waitForNoConnections())
            #expect(calls.withLockedValue { $0 } < 100)
            await stalled.close()
        }
    }

    @Test("limits out of range are refused at start")
    func invalidConfiguration() async throws {
        let server = HTTPServer(configuration: testConfiguration { $0.limits.maxConnections = 0 }, router: Router())
        await #expect(throws: HTTPServerError.invalidConfiguration("maxConnections must be positive")) {
            try await server.start()
        }
    }

    @Test("default headers that cannot be sent are refused at start")
    func invalidDefaultHeaders() async throws {
        let server = HTTPServer(configuration: testConfiguration { $0.defaultHeaders = ["X-Bad": "a\r\nb"] }, router: Router())
        await #expect(throws: HTTPServerError.invalidConfiguration("a default header's name is not a token, or its value holds CR, LF or NUL")) {
            try await server.start()
        }
    }
}
