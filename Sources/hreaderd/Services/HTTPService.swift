import HTTPKit
import Logging
import ServiceLifecycle

/// The HTTP side as a service: a server already listening (bound before the daemon says it is ready, so
/// that a bind error ends the start with one clear line) serves until the daemon shuts down; then it takes
/// no new connection and lets the requests in flight finish within `gracePeriod` (`HTTPServer.shutdown`).
/// HTTPKit knows nothing of the lifecycle library; this is the whole of the adapter.
struct HTTPService: Service {
    let server: HTTPServer
    let addresses: [SocketAddress]
    let gracePeriod: Duration
    let logger: Logger

    func run() async {
        // Logged from here: the group handles SIGTERM from now on, so whoever waits for this line may send it.
        for address in addresses {
            logger.info("listening on \(Self.describe(address))")
        }
        try? await gracefulShutdown()
        logger.info("stopping: finishing requests in flight")
        await server.shutdown(gracePeriod: gracePeriod)
    }

    static func describe(_ address: SocketAddress) -> String {
        switch address {
        case .v4: return "\(address.ipAddress ?? "?"):\(address.port ?? 0)"
        case .v6: return "[\(address.ipAddress ?? "?")]:\(address.port ?? 0)"
        case .unixDomainSocket: return "unix:\(address.pathname ?? "?")"
        }
    }
}
