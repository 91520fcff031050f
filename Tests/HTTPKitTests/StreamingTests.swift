import HTTPKit
import NIOConcurrencyHelpers
import NIOCore
import Testing

/// Bodies made as they are sent (`ResponseBody.stream`): chunked to HTTP/1.1 clients, delimited by the
/// close for HTTP/1.0, paced by the client, and cut short (never ended as if whole) when a chunk fails.
@Suite("Streamed bodies")
struct StreamingTests {
    /// A stream of `chunks`, failing at `failAt` when given; records how it finished.
    final class Probe: Sendable {
        let chunks: [String]
        let failAt: Int?
        private let state = NIOLockedValueBox<(asked: Int, finished: [Bool])>((0, []))

        init(_ chunks: [String], failAt: Int? = nil) {
            self.chunks = chunks
            self.failAt = failAt
        }

        var asked: Int { state.withLockedValue { $0.asked } }
        var finished: [Bool] { state.withLockedValue { $0.finished } }

        struct Failure: Error {}

        var stream: ResponseStream {
            ResponseStream(next: { [self] in
                let index = state.withLockedValue { value -> Int in
                    value.asked += 1
                    return value.asked - 1
                }
                if index == failAt { throw Failure() }
                return index < chunks.count ? ByteBuffer(string: chunks[index]) : nil
            }, finished: { [self] whole in state.withLockedValue { $0.finished.append(whole) } })
        }

        func waitUntilFinished() async -> Bool {
            for _ in 0..<500 where finished.isEmpty { try? await Task.sleep(for: .milliseconds(10)) }
            return !finished.isEmpty
        }
    }

    func router(_ probe: Probe) -> Router {
        var router = demoRouter()
        router.get("/stream") { _, _ in
            Response(status: .ok, headers: ["Content-Type": "text/plain"], body: .stream(probe.stream))
        }
        return router
    }

    @Test("HTTP/1.1: chunked, no Content-Length, every chunk in order, and the connection stays open")
    func chunked() async throws {
        let probe = Probe(["one,", "", "two,", String(repeating: "x", count: 300_000)])
        try await withServer(router: router(probe)) { server in
            let client = try await server.connect()
            try await client.send(http("GET /stream HTTP/1.1", "Host: x") + http("GET /hello HTTP/1.1", "Host: x"))
            let streamed = try await client.response()
            #expect(streamed.status == 200)
            #expect(streamed.header("Transfer-Encoding") == "chunked")
            #expect(streamed.header("Content-Length") == nil)
            #expect(streamed.bodyText == "one,two," + String(repeating: "x", count: 300_000))
            #expect(!streamed.closesConnection)
            // The next request on the same connection: the chunked body ended where it should.
            #expect(try await client.response().bodyText == "hello")
            #expect(probe.finished == [true])
            #expect(probe.asked == 5, "asked once a chunk and once for the end")
            await client.close()
        }
    }

    @Test("HTTP/1.0: no chunks; the body ends with the connection")
    func http10() async throws {
        let probe = Probe(["a", "b", "c"])
        try await withServer(router: router(probe)) { server in
            let client = try await server.connect()
            try await client.send(http("GET /stream HTTP/1.0", "Host: x", "Connection: keep-alive"))
            #expect(await client.waitUntilClosed())
            let response = try await client.response()
            #expect(response.header("Transfer-Encoding") == nil && response.header("Content-Length") == nil)
            #expect(response.closesConnection)
            #expect(response.bodyText == "abc")
            #expect(probe.finished == [true])
        }
    }

    @Test("HEAD: the stream is never asked, and is told it is done with")
    func head() async throws {
        let probe = Probe(["a"])
        try await withServer(router: router(probe)) { server in
            let response = try await server.roundTrip(http("HEAD /stream HTTP/1.1", "Host: x"), bodyless: true)
            #expect(response.status == 200)
            #expect(await probe.waitUntilFinished())
            #expect(probe.asked == 0 && probe.finished == [false])
        }
    }

    @Test("a chunk that fails cuts the body short and closes the connection: never a body that looks whole")
    func failure() async throws {
        let probe = Probe(["first,", "second,", "third"], failAt: 1)
        try await withServer(router: router(probe)) { server in
            let client = try await server.connect()
            try await client.send(http("GET /stream HTTP/1.1", "Host: x"))
            #expect(await client.waitUntilClosed())
            let bytes = String(decoding: client.pendingBytes, as: UTF8.self)
            #expect(bytes.contains("first,") && !bytes.contains("second,"))
            #expect(!bytes.hasSuffix("0\r\n\r\n"), "the last chunk was not sent: \(bytes.suffix(20))")
            #expect(probe.finished == [false])
        }
    }

    @Test("a client that goes away mid-stream stops it")
    func clientGone() async throws {
        let chunks = Array(repeating: String(repeating: "z", count: 1 << 20), count: 200)
        let probe = Probe(chunks)
        try await withServer(router: router(probe)) { server in
            let client = try await RawClient.connect(to: server.address, reading: false)
            try await client.send(http("GET /stream HTTP/1.1", "Host: x"))
            try await Task.sleep(for: .milliseconds(200))
            await client.close()
            #expect(await probe.waitUntilFinished())
            #expect(probe.finished == [false])
            #expect(probe.asked < chunks.count, "the stream was not read to its end for nobody")
        }
    }
}
