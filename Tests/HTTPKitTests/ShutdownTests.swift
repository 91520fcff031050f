import HTTPKit
import NIOCore
import Testing

@Suite("Graceful shutdown")
struct ShutdownTests {
    /// A route that reports when it starts and answers when released (or never, until the test
    /// ends: the stream is finished then).
    final class Gate: Sendable {
        let started: AsyncStream<Void>
        private let startedContinuation: AsyncStream<Void>.Continuation
        let released: AsyncStream<Void>
        private let releasedContinuation: AsyncStream<Void>.Continuation

        init() {
            (self.started, self.startedContinuation) = AsyncStream<Void>.makeStream()
            (self.released, self.releasedContinuation) = AsyncStream<Void>.makeStream()
        }

        func router() -> Router {
            var router = demoRouter()
            router.get("/slow") { _, _ in
                self.startedContinuation.yield()
                for await _ in self.released { break }
                return .text("finished")
            }
            return router
        }

        func waitUntilStarted() async {
            for await _ in self.started { return }
        }

        func release() {
            self.releasedContinuation.yield()
        }

        func finish() {
            self.releasedContinuation.finish()
        }
    }

    private func connectionRefused(_ address: SocketAddress) async -> Bool {
        do {
            let client = try await RawClient.connect(to: address)
            await client.close()
            return false
        } catch {
            return true
        }
    }

    @Test("shutdown stops accepting, lets the request in flight finish with Connection: close, closes idle connections")
    func requestInFlight() async throws {
        let gate = Gate()
        defer { gate.finish() }
        let server = HTTPServer(configuration: testConfiguration(), router: gate.router())
        let address = try await server.start()[0]

        let idle = try await RawClient.connect(to: address)
        try await idle.send(http("GET /hello HTTP/1.1", "Host: x"))
        #expect(try await idle.response().status == 200)

        let busy = try await RawClient.connect(to: address)
        try await busy.send(http("GET /slow HTTP/1.1", "Host: x"))
        await gate.waitUntilStarted()

        let shutdown = Task { await server.shutdown(gracePeriod: .seconds(30)) }
        #expect(await idle.waitUntilClosed())
        var refused = false
        for _ in 0..<200 where !refused {
            refused = await self.connectionRefused(address)
            if !refused { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(refused)
        #expect(busy.pendingBytes.isEmpty && !busy.isClosed)

        gate.release()
        let response = try await busy.response()
        #expect(response.status == 200)
        #expect(response.bodyText == "finished")
        #expect(response.closesConnection)
        #expect(await busy.waitUntilClosed())
        await shutdown.value
        #expect(server.connectionCount == 0)
    }

    @Test("a request that outlives the grace period is cut off, and shutdown still returns")
    func gracePeriodBound() async throws {
        let gate = Gate()
        defer { gate.finish() }
        let server = HTTPServer(configuration: testConfiguration(), router: gate.router())
        let address = try await server.start()[0]
        let busy = try await RawClient.connect(to: address)
        try await busy.send(http("GET /slow HTTP/1.1", "Host: x"))
        await gate.waitUntilStarted()

        await server.shutdown(gracePeriod: .milliseconds(200))
        #expect(await busy.waitUntilClosed())
        #expect(busy.pendingBytes.isEmpty)
        #expect(server.connectionCount == 0)
    }

    @Test("shutdown of a server never started, or twice, does nothing; a stopped server does not restart")
    func idempotent() async throws {
        let never = HTTPServer(configuration: testConfiguration(), router: Router())
        await never.shutdown(gracePeriod: .seconds(1))
        let server = HTTPServer(configuration: testConfiguration(), router: demoRouter())
        let address = try await server.start()[0]
        await server.shutdown(gracePeriod: .seconds(1))
        await server.shutdown(gracePeriod: .seconds(1))
        #expect(await self.connectionRefused(address))
        await #expect(throws: HTTPServerError.alreadyStarted) { _ = try await server.start() }
    }
}
