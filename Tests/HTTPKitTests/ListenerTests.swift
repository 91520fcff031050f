import Foundation
@testable import HTTPKit
import NIOCore
import TestSupport
import Testing

@Suite("Listeners")
struct ListenerTests {
    private func unixRouter() -> Router {
        var router = demoRouter()
        router.get("/where") { _, context in .text("unix=\(context.isUnixSocket)") }
        return router
    }

    @Test("a Unix socket is created owner-only, serves requests, and is removed at shutdown")
    func unixSocket() async throws {
        let directory = TemporaryDirectory("httpkit-tests")
        defer { directory.remove() }
        let path = directory.path + "/http.sock"
        let server = HTTPServer(configuration: testConfiguration { $0.listeners = [.unix(path: path)] }, router: self.unixRouter())
        let addresses = try await server.start()
        #expect(Sockets.permissions(of: path) == 0o600)
        let client = try await RawClient.connect(to: addresses[0])
        try await client.send(http("GET /where HTTP/1.1", "Host: localhost"))
        #expect(try await client.response().bodyText == "unix=true")
        await client.close()
        await server.shutdown(gracePeriod: .seconds(2))
        #expect(!Sockets.exists(path))
    }

    @Test("a Unix socket takes the mode it is given")
    func unixSocketMode() async throws {
        let directory = TemporaryDirectory("httpkit-tests")
        defer { directory.remove() }
        let path = directory.path + "/group.sock"
        try await withServer(testConfiguration { $0.listeners = [.unix(path: path, mode: 0o660)] }) { _ in
            #expect(Sockets.permissions(of: path) == 0o660)
        }
    }

    @Test("a stale socket file left by a crash is replaced")
    func staleSocket() async throws {
        let directory = TemporaryDirectory("httpkit-tests")
        defer { directory.remove() }
        let path = directory.path + "/stale.sock"
        try Sockets.staleSocketFile(at: path)
        #expect(Sockets.exists(path))
        try await withServer(testConfiguration { $0.listeners = [.unix(path: path)] }) { server in
            let response = try await server.roundTrip(http("GET /hello HTTP/1.1", "Host: x"))
            #expect(response.bodyText == "hello")
        }
    }

    @Test("a socket another server is listening on is refused, and that server keeps serving")
    func liveSocket() async throws {
        let directory = TemporaryDirectory("httpkit-tests")
        defer { directory.remove() }
        let path = directory.path + "/live.sock"
        let configuration = testConfiguration { $0.listeners = [.unix(path: path)] }
        try await withServer(configuration) { first in
            let second = HTTPServer(configuration: configuration, router: Router())
            await #expect(throws: HTTPServerError.socketPathInUse(path)) { try await second.start() }
            let response = try await first.roundTrip(http("GET /hello HTTP/1.1", "Host: x"))
            #expect(response.bodyText == "hello")
        }
    }

    @Test("a file that is not a socket is never replaced")
    func notASocket() async throws {
        let directory = TemporaryDirectory("httpkit-tests")
        defer { directory.remove() }
        let path = directory.path + "/important.txt"
        try directory.file("important.txt", "keep me")
        let server = HTTPServer(configuration: testConfiguration { $0.listeners = [.unix(path: path)] }, router: Router())
        await #expect(throws: HTTPServerError.socketPathNotASocket(path)) { try await server.start() }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
    }

    @Test("an inherited, already listening TCP socket is adopted")
    func inheritedTCP() async throws {
        let (descriptor, port) = try Sockets.tcpListener()
        try await withServer(testConfiguration { $0.listeners = [.inherited(descriptor: descriptor)] }) { server in
            #expect(server.address.port == port)
            let client = try await RawClient.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: port))
            try await client.send(http("GET /hello HTTP/1.1", "Host: x"))
            #expect(try await client.response().bodyText == "hello")
            await client.close()
        }
    }

    @Test("an inherited Unix socket is adopted and known as a Unix socket")
    func inheritedUnix() async throws {
        let directory = TemporaryDirectory("httpkit-tests")
        defer { directory.remove() }
        let path = directory.path + "/systemd.sock"
        let descriptor = try Sockets.unixSocket(at: path, listening: true)
        let configuration = testConfiguration { $0.listeners = [.inherited(descriptor: descriptor)] }
        try await withServer(configuration, router: self.unixRouter()) { server in
            let response = try await server.roundTrip(http("GET /where HTTP/1.1", "Host: x"))
            #expect(response.bodyText == "unix=true")
        }
    }

    @Test("an inherited descriptor that is not a listening socket is refused")
    func inheritedNotListening() async throws {
        let (descriptor, _) = try Sockets.tcpListener(listening: false)
        defer { close(descriptor) }
        let server = HTTPServer(configuration: testConfiguration { $0.listeners = [.inherited(descriptor: descriptor)] }, router: Router())
        await #expect(throws: HTTPServerError.self) { try await server.start() }
        do {
            _ = try await server.start()
        } catch {
            guard case .invalidInheritedSocket(let refused, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(refused == descriptor)
        }
    }

    @Test("systemd's LISTEN_PID and LISTEN_FDS name the inherited sockets of this process only")
    func socketActivationEnvironment() throws {
        let me = getpid()
        #expect(try SystemdSocketActivation.listeners(environment: [:]) == [])
        #expect(try SystemdSocketActivation.listeners(environment: ["LISTEN_PID": "\(me + 1)", "LISTEN_FDS": "1"]) == [])
        #expect(throws: SystemdSocketActivation.ActivationError.malformed(variable: "LISTEN_FDS", value: "x")) {
            try SystemdSocketActivation.listeners(environment: ["LISTEN_PID": "\(me)", "LISTEN_FDS": "x"])
        }
        #expect(throws: SystemdSocketActivation.ActivationError.malformed(variable: "LISTEN_PID", value: "abc")) {
            try SystemdSocketActivation.listeners(environment: ["LISTEN_PID": "abc", "LISTEN_FDS": "1"])
        }
    }

    @Test("socket activation adopts the passed descriptors, and refuses one that is not a socket")
    func socketActivation() async throws {
        let (listener, port) = try Sockets.tcpListener()
        // Stands for systemd's fd 3: the lowest free descriptor from 700 up. Never dup2 onto a fixed number:
        // in a test process that number may be another test's (an event loop's eventfd), which dup2 would close.
        let passed = fcntl(listener, F_DUPFD, Int32(700))  // without CLOEXEC: adopting it must set that
        #expect(passed >= 700)
        close(listener)
        let environment = ["LISTEN_PID": "\(getpid())", "LISTEN_FDS": "1"]
        let listeners = try SystemdSocketActivation.listeners(environment: environment, processID: getpid(), startingAt: passed)
        #expect(listeners == [.inherited(descriptor: passed)])
        #expect(fcntl(passed, F_GETFD) & FD_CLOEXEC != 0)
        try await withServer(testConfiguration { $0.listeners = listeners }) { server in
            #expect(server.address.port == port)
            let response = try await server.roundTrip(http("GET /hello HTTP/1.1", "Host: x"))
            #expect(response.status == 200)
        }

        let file = open("/dev/null", O_RDONLY)
        defer { close(file) }
        #expect(throws: SystemdSocketActivation.ActivationError.notASocket(descriptor: file)) {
            try SystemdSocketActivation.listeners(environment: environment, processID: getpid(), startingAt: file)
        }
    }

    @Test("IPv6 loopback is served", .enabled(if: Sockets.ipv6LoopbackAvailable))
    func ipv6() async throws {
        try await withServer(testConfiguration { $0.listeners = [.tcp(host: "::1", port: 0)] }) { server in
            #expect(server.address.protocol == .inet6)
            let response = try await server.roundTrip(http("GET /hello HTTP/1.1", "Host: [::1]"))
            #expect(response.bodyText == "hello")
        }
    }

    @Test("several listeners serve at once; start reports them in order")
    func severalListeners() async throws {
        let directory = TemporaryDirectory("httpkit-tests")
        defer { directory.remove() }
        let path = directory.path + "/both.sock"
        let configuration = testConfiguration { $0.listeners = [.tcp(host: "127.0.0.1", port: 0), .unix(path: path)] }
        try await withServer(configuration, router: self.unixRouter()) { server in
            #expect(server.addresses.count == 2)
            #expect(server.addresses[0].protocol == .inet)
            #expect(server.addresses[1].pathname == path)
            #expect(try await server.roundTrip(http("GET /where HTTP/1.1", "Host: x")).bodyText == "unix=false")
            let client = try await server.connect(1)
            try await client.send(http("GET /where HTTP/1.1", "Host: x"))
            #expect(try await client.response().bodyText == "unix=true")
            await client.close()
        }
    }

    @Test("when one listener fails, start throws and leaves nothing bound")
    func partialFailure() async throws {
        let directory = TemporaryDirectory("httpkit-tests")
        defer { directory.remove() }
        let path = directory.path + "/partial.sock"
        try await withServer { running in
            let port = running.address.port ?? 0
            let server = HTTPServer(
                configuration: testConfiguration { $0.listeners = [.unix(path: path), .tcp(host: "127.0.0.1", port: port)] },
                router: Router())
            await #expect(throws: HTTPServerError.self) { try await server.start() }
            #expect(!Sockets.exists(path))
        }
    }

    @Test("a server starts once")
    func startTwice() async throws {
        try await withServer { server in
            await #expect(throws: HTTPServerError.alreadyStarted) { try await server.server.start() }
        }
    }
}
