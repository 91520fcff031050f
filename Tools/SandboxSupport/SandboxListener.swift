import HTTPKit
import Logging
import Synchronization

/// The HTTP side of a sandbox server: one HTTPKit server on a host and port (0: any free port), started and
/// stopped with the sandbox. `isRunning` turns false at `stop`, so that answers a fault delays end at once.
public final class SandboxListener: Sendable {
    private struct State: Sendable {
        var server: HTTPServer?
        var port = 0
        var running = false
    }

    private let label: String
    private let state = Mutex(State())

    /// `label`: the logger's, which is also the sandbox's name in its log lines.
    public init(label: String) {
        self.label = label
    }

    /// Starts listening; returns the port.
    public func start(host: String, port: Int, eventLoopThreads: Int, router: Router) async throws -> Int {
        var configuration = HTTPServer.Configuration()
        configuration.listeners = [.tcp(host: host, port: port)]
        configuration.eventLoopThreads = eventLoopThreads
        configuration.accessLogLevel = .trace
        var logger = Logger(label: label)
        logger.logLevel = .warning
        let http = HTTPServer(configuration: configuration, router: router, logger: logger)
        let addresses = try await http.start()
        let bound = addresses.first?.port ?? 0
        state.withLock {
            $0.server = http
            $0.port = bound
            $0.running = true
        }
        return bound
    }

    /// Stops listening; delayed answers in flight end at once.
    public func stop() async {
        let http = state.withLock { state -> HTTPServer? in
            state.running = false
            defer { state.server = nil }
            return state.server
        }
        await http?.shutdown(gracePeriod: .milliseconds(200))
    }

    public var port: Int { state.withLock { $0.port } }
    public var isRunning: Bool { state.withLock { $0.running } }
}
