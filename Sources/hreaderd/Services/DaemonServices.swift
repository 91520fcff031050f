import Logging
import ServiceLifecycle
import UnixSignals

/// The daemon's long-running parts, run by one `ServiceGroup`: SIGTERM and SIGINT shut them all down
/// gracefully, in the reverse of their order here; when one fails (throws, or returns before it was asked
/// to stop), the group says which, shuts the others down gracefully, and the daemon exits 1.
struct DaemonServices {
    /// A service and the name the log and the error give it.
    struct Named {
        let name: String
        let service: any Service
    }

    /// One of the daemon's services failed: the error that ends `serve`.
    struct Failure: Error, CustomStringConvertible {
        let service: String
        let reason: String
        var description: String { "the \(service) service failed: \(reason)" }
    }

    /// In start order; shutdown goes the other way: the last one here stops first.
    var services: [Named] = []
    let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    mutating func add(_ name: String, _ service: any Service) {
        services.append(Named(name: name, service: service))
    }

    /// The group; `signals` become a graceful shutdown of every service (none in tests that drive it).
    func group(signals: [UnixSignal] = [.sigterm, .sigint]) -> ServiceGroup {
        let configurations = services.map { named in
            ServiceGroupConfiguration.ServiceConfiguration(
                service: Watched(name: named.name, service: named.service, logger: logger),
                successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup,
                serviceName: named.name)
        }
        return ServiceGroup(configuration: ServiceGroupConfiguration(services: configurations, gracefulShutdownSignals: signals,
                                                                    logger: logger))
    }

    /// Runs every service until a signal (or a failure) shuts them down. Throws `Failure` for the first
    /// service that failed.
    func run(signals: [UnixSignal] = [.sigterm, .sigint]) async throws(Failure) {
        do {
            try await group(signals: signals).run()
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(service: "lifecycle", reason: "\(error)")
        }
    }

    /// A service whose failure is logged and named.
    struct Watched: Service {
        let name: String
        let service: any Service
        let logger: Logger

        func run() async throws {
            do {
                try await service.run()
            } catch {
                logger.error("the \(name) service failed: \(error)")
                throw Failure(service: name, reason: "\(error)")
            }
            guard Task.isShuttingDownGracefully || Task.isCancelled else {
                logger.error("the \(name) service stopped by itself")
                throw Failure(service: name, reason: "it stopped by itself")
            }
        }
    }
}
