#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The HTTP/1.1 server: listeners, connections, and the application (a `Router` behind a chain
/// of `Middleware`).
///
/// ```swift
/// let server = HTTPServer(configuration: configuration, router: router, middleware: [policy], logger: logger)
/// let addresses = try await server.start()   // bound addresses (port 0 becomes a real port)
/// …                                          // until SIGTERM
/// await server.shutdown(gracePeriod: .seconds(10))
/// ```
public final class HTTPServer: Sendable {
    public let configuration: Configuration
    private let settings: ConnectionSettings
    private let registry: ConnectionRegistry
    private let overCapacityAnswer: ByteBuffer
    private let gate = EventLoopGate()
    private let state = NIOLockedValueBox(State.idle)
    private let logger: Logger

    private enum State {
        case idle
        case starting
        case running(Running)
        case stopping
        case stopped
    }

    private struct Running {
        let group: MultiThreadedEventLoopGroup
        let listeners: [BoundListener]
    }

    private struct BoundListener {
        let channel: any Channel
        /// For a Unix socket we created: the file to remove at shutdown, if it is still ours.
        let socketFile: (path: String, identity: UnixSocketFile.Identity)?
    }

    public init(
        configuration: Configuration = Configuration(),
        router: Router,
        middleware: [any Middleware] = [],
        logger: Logger = Logger(label: "HTTPKit")
    ) {
        self.configuration = configuration
        self.logger = logger
        // Defaults that cannot be sent stop `start()` (`validateConfiguration`); until then, none.
        let defaultHeaders = DefaultHeaders.problem(with: configuration.defaultHeaders) == nil
            ? DefaultHeaders(configuration.defaultHeaders) : .none
        self.settings = ConnectionSettings(
            limits: configuration.limits,
            responder: Responder(router: router, middleware: middleware),
            defaultHeaders: defaultHeaders,
            accessLog: AccessLog(logger: logger, level: configuration.accessLogLevel, output: configuration.accessLogOutput),
            logger: logger,
            loopGate: self.gate
        )
        self.registry = ConnectionRegistry(limit: configuration.limits.maxConnections)
        self.overCapacityAnswer = OverCapacityHandler.answerBytes(defaultHeaders: defaultHeaders)
    }

    /// The connections open now (for diagnostics, and for tests that look for leaks).
    public var connectionCount: Int {
        self.registry.count
    }

    /// Binds every listener and starts accepting.
    ///
    /// - Returns: the bound addresses, in the order of `configuration.listeners`.
    /// - Throws: `HTTPServerError`; nothing is left bound when it throws.
    public func start() async throws(HTTPServerError) -> [SocketAddress] {
        let claimed = self.state.withLockedValue { state in
            guard case .idle = state else { return false }
            state = .starting
            return true
        }
        guard claimed else { throw .alreadyStarted }
        do {
            try self.validateConfiguration()
            let running = try await self.bindAll()
            self.state.withLockedValue { $0 = .running(running) }
            let addresses = running.listeners.compactMap { $0.channel.localAddress }
            self.logger.info("listening", metadata: ["addresses": "\(addresses.map(\.description))"])
            return addresses
        } catch {
            self.state.withLockedValue { $0 = .idle }
            throw error
        }
    }

    /// Stops the server: no new connections; requests in flight may finish within
    /// `gracePeriod` (their responses say `Connection: close`); idle connections close at once;
    /// whatever remains after the grace period is closed. Returns when everything is closed.
    public func shutdown(gracePeriod: Duration) async {
        let running: Running? = self.state.withLockedValue { state in
            guard case .running(let running) = state else { return nil }
            state = .stopping
            return running
        }
        guard let running else { return }

        for listener in running.listeners {
            try? await listener.channel.close()
            if let file = listener.socketFile {
                UnixSocketFile.remove(path: file.path, ifStill: file.identity)
            }
        }

        let open = self.registry.beginDraining()
        for channel in open {
            // HTTPServerPipelineHandler closes an idle connection at once, and a busy one after
            // its current response.
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for channel in open {
                    try? await channel.closeFuture.get()
                }
            }
            group.addTask {
                try? await Task.sleep(for: gracePeriod)
            }
            await group.next()
            let remaining = self.registry.openChannels
            if !remaining.isEmpty {
                self.logger.notice("closing connections after the grace period", metadata: ["count": "\(remaining.count)"])
            }
            for channel in remaining {
                channel.close(promise: nil)
            }
            group.cancelAll()
        }

        self.gate.close()
        try? await running.group.shutdownGracefully()
        self.state.withLockedValue { $0 = .stopped }
        self.logger.info("HTTP server stopped")
    }

    private func validateConfiguration() throws(HTTPServerError) {
        let limits = self.configuration.limits
        let checks: [(Bool, String)] = [
            (!self.configuration.listeners.isEmpty, "no listeners"),
            (self.configuration.eventLoopThreads > 0, "eventLoopThreads must be positive"),
            (limits.maxHeaderBytes > 0, "maxHeaderBytes must be positive"),
            (limits.maxHeaderCount > 0, "maxHeaderCount must be positive"),
            (limits.maxBodyBytes >= 0, "maxBodyBytes must not be negative"),
            (limits.maxConnections > 0, "maxConnections must be positive"),
            (limits.maxRequestsPerConnection > 0, "maxRequestsPerConnection must be positive"),
            (limits.listenBacklog > 0, "listenBacklog must be positive"),
            (limits.requestHeadTimeout > .zero, "requestHeadTimeout must be positive"),
            (limits.requestBodyTimeout > .zero, "requestBodyTimeout must be positive"),
            (limits.keepAliveTimeout > .zero, "keepAliveTimeout must be positive"),
            (limits.responseWriteTimeout > .zero, "responseWriteTimeout must be positive"),
            (limits.lingeringCloseTimeout >= .zero, "lingeringCloseTimeout must not be negative"),
        ]
        if let failed = checks.first(where: { !$0.0 }) {
            throw failed.1 == "no listeners" ? .noListeners : .invalidConfiguration(failed.1)
        }
        if let problem = DefaultHeaders.problem(with: self.configuration.defaultHeaders) {
            throw .invalidConfiguration(problem)
        }
    }

    private func bindAll() async throws(HTTPServerError) -> Running {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: self.configuration.eventLoopThreads)
        var bound: [BoundListener] = []
        do {
            for listener in self.configuration.listeners {
                bound.append(try await self.bind(listener, on: group))
            }
        } catch {
            for listener in bound {
                try? await listener.channel.close()
                if let file = listener.socketFile {
                    UnixSocketFile.remove(path: file.path, ifStill: file.identity)
                }
            }
            try? await group.shutdownGracefully()
            throw error
        }
        return Running(group: group, listeners: bound)
    }

    private func bind(_ listener: Listener, on group: MultiThreadedEventLoopGroup) async throws(HTTPServerError) -> BoundListener {
        let settings = self.settings
        let registry = self.registry
        let answer = self.overCapacityAnswer
        var bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: Int32(clamping: self.configuration.limits.listenBacklog))
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try HTTPChannelSetup.configure(channel, settings: settings, registry: registry, overCapacityAnswer: answer)
                }
            }
        do {
            switch listener {
            case .tcp(let host, let port):
                bootstrap = bootstrap.childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                let channel = try await bootstrap.bind(host: host, port: port).get()
                return BoundListener(channel: channel, socketFile: nil)

            case .unix(let path, let mode):
                try UnixSocketFile.prepare(path: path)
                let (descriptor, identity) = try UnixSocketFile.create(path: path, mode: mode)
                do {
                    let channel = try await bootstrap.withBoundSocket(descriptor).get()
                    return BoundListener(channel: channel, socketFile: (path, identity))
                } catch {
                    UnixSocketFile.remove(path: path, ifStill: identity)
                    throw error
                }

            case .inherited(let descriptor):
                do {
                    try SystemdSocketActivation.checkListeningSocket(descriptor)
                } catch {
                    throw HTTPServerError.invalidInheritedSocket(descriptor: descriptor, reason: "\(error)")
                }
                if Self.isInternetSocket(descriptor) {
                    bootstrap = bootstrap.childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                }
                let channel = try await bootstrap.withBoundSocket(descriptor).get()
                return BoundListener(channel: channel, socketFile: nil)
            }
        } catch let error as HTTPServerError {
            throw error
        } catch {
            throw .bindFailed(listener: listener.description, reason: "\(error)")
        }
    }

    private static func isInternetSocket(_ descriptor: CInt) -> Bool {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { return false }
        return Int32(address.ss_family) == AF_INET || Int32(address.ss_family) == AF_INET6
    }
}
