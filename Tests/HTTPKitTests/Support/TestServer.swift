import HTTPKit
import Logging
import NIOCore

/// A server on a free loopback port for one test, always shut down afterwards.
struct TestServer: Sendable {
    let server: HTTPServer
    let addresses: [SocketAddress]

    var address: SocketAddress { self.addresses[0] }

    func connect(_ index: Int = 0) async throws -> RawClient {
        try await RawClient.connect(to: self.addresses[index])
    }

    /// Sends one request on a new connection and returns the answer.
    func roundTrip(_ request: String, bodyless: Bool = false) async throws -> ParsedResponse {
        let client = try await self.connect()
        defer { Task { await client.close() } }
        try await client.send(request)
        return try await client.response(bodyless: bodyless)
    }

    /// Waits until the server has no open connection (closes are asynchronous).
    func waitForNoConnections(timeout: Duration = .seconds(10)) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if self.server.connectionCount == 0 { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return self.server.connectionCount == 0
    }
}

/// A configuration for tests: loopback, a free port, one event loop thread.
func testConfiguration(_ adjust: (inout HTTPServer.Configuration) -> Void = { _ in }) -> HTTPServer.Configuration {
    var configuration = HTTPServer.Configuration()
    configuration.listeners = [.tcp(host: "127.0.0.1", port: 0)]
    configuration.eventLoopThreads = 1
    adjust(&configuration)
    return configuration
}

/// Runs `body` against a started server, and shuts the server down however `body` ends.
@discardableResult
func withServer<T>(
    _ configuration: HTTPServer.Configuration = testConfiguration(),
    router: Router = demoRouter(),
    middleware: [any Middleware] = [],
    logger: Logger = Logger(label: "HTTPKitTests", factory: { _ in SwiftLogNoOpLogHandler() }),
    _ body: (TestServer) async throws -> T
) async throws -> T {
    let server = HTTPServer(configuration: configuration, router: router, middleware: middleware, logger: logger)
    let addresses = try await server.start()
    let testServer = TestServer(server: server, addresses: addresses)
    do {
        let result = try await body(testServer)
        await server.shutdown(gracePeriod: .seconds(2))
        return result
    } catch {
        await server.shutdown(gracePeriod: .seconds(2))
        throw error
    }
}

/// Routes most tests use.
func demoRouter() -> Router {
    var router = Router()
    router.get("/hello") { _, _ in .text("hello") }
    router.get("/echo-path/{name}") { request, context in
        .text("\(context.parameters["name"] ?? "-")|\(request.path)")
    }
    router.get("/query") { request, _ in
        .text(request.query.map { "\($0.name)=\($0.value)" }.joined(separator: ";"))
    }
    router.post("/upload") { request, _ in
        .text("\(request.body.readableBytes)")
    }
    router.post("/small", bodyLimit: 10) { request, _ in
        .text("\(request.body.readableBytes)")
    }
    router.put("/hello") { _, _ in .text("put") }
    return router
}

/// A request head with the given lines, CRLF-terminated, and the empty line.
func http(_ lines: String...) -> String {
    http(lines)
}

func http(_ lines: [String]) -> String {
    lines.map { $0 + "\r\n" }.joined() + "\r\n"
}
