import Foundation
import ServiceLifecycle
import Synchronization
import Testing
@testable import hreaderd

/// The daemon's one lifecycle (`DaemonServices`): a failing service is named, the others are shut down
/// gracefully, in the reverse of their order.
@Suite("the daemon's service group")
struct DaemonServicesTests {
    /// What the services did, in order.
    final class Journal: Sendable {
        let lines = Mutex<[String]>([])
        func note(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// Runs until shut down, then notes it.
    struct Steady: Service {
        let name: String
        let journal: Journal
        func run() async {
            try? await gracefulShutdown()
            journal.note("\(name) stopped")
        }
    }

    struct Failing: Service {
        struct Broken: Error, CustomStringConvertible { var description: String { "the disk is gone" } }
        func run() async throws {
            try await Task.sleep(for: .milliseconds(50))
            throw Broken()
        }
    }

    struct Quitting: Service {
        func run() async {}
    }

    @Test("a service that throws is named in the error, and the others stop gracefully, last started first")
    func failureIsNamed() async throws {
        let journal = Journal()
        var services = DaemonServices(logger: .init(label: "test"))
        services.add("first", Steady(name: "first", journal: journal))
        services.add("backups", Failing())
        services.add("third", Steady(name: "third", journal: journal))
        do {
            try await services.run(signals: [])
            Issue.record("the group ended without an error")
        } catch {
            #expect(error.service == "backups")
            #expect(error.description == "the backups service failed: the disk is gone")
        }
        #expect(journal.all == ["third stopped", "first stopped"])
    }

    @Test("a service that returns before it is asked to stop is a failure too")
    func returningIsAFailure() async throws {
        let journal = Journal()
        var services = DaemonServices(logger: .init(label: "test"))
        services.add("steady", Steady(name: "steady", journal: journal))
        services.add("idle lock", Quitting())
        do {
            try await services.run(signals: [])
            Issue.record("the group ended without an error")
        } catch {
            #expect(error.description == "the idle lock service failed: it stopped by itself")
        }
        #expect(journal.all == ["steady stopped"])
    }

    @Test("a graceful shutdown stops every service, the last added first, and is no failure")
    func gracefulShutdownInReverse() async throws {
        let journal = Journal()
        var services = DaemonServices(logger: .init(label: "test"))
        for name in ["uploads", "HTTP server", "systemd supervisor"] { services.add(name, Steady(name: name, journal: journal)) }
        let group = services.group(signals: [])
        async let ran: Void = group.run()
        try await Task.sleep(for: .milliseconds(50))
        await group.triggerGracefulShutdown()
        try await ran
        #expect(journal.all == ["systemd supervisor stopped", "HTTP server stopped", "uploads stopped"])
    }
}
