import ArgumentParser
import FHIRClient
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HTTPKit
import ImportJobs
import Library
import Logging
import RHExClient
import HealthRecord
import Store
import TimelineAPI

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the daemon: the timeline API and web app on loopback.",
        discussion: """
            Unlocks the store with the password file or systemd credential when there is one; otherwise (or with \
            --locked) it starts locked and waits for a sign-in. An inherited systemd socket replaces --listen.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("Address to listen on (repeatable). Default: 127.0.0.1:8420.", valueName: "host:port"))
    var listen: [ListenAddress] = []

    @Option(name: .long, help: ArgumentHelp("Also listen on a Unix domain socket (mode 0600).", valueName: "path"))
    var unixSocket: String?

    @Option(name: .long, help: ArgumentHelp("The web app directory. Default: found beside the binary.", valueName: "dir"))
    var publicDir: String?

    @Flag(name: .long, help: "Start locked, even when a password is available.")
    var locked = false

    @Option(name: .long, help: ArgumentHelp("Seconds that requests in flight, and then uploads being imported, may take to finish at shutdown.",
                                            valueName: "seconds"))
    var shutdownGrace: Int = 10

    @Option(name: .long, help: ArgumentHelp("Lock the store after this many minutes without an authenticated request (0: never).", valueName: "minutes"))
    var idleLock: Int = 30

    @Option(name: .long, help: ArgumentHelp("Memory for cached timeline pages, in MiB (0: none).", valueName: "MiB"))
    var pageCacheMib: Int = 32

    @Option(name: .long, help: ArgumentHelp("Sync each RHEx source every so many minutes (0: only when asked; a source's own setting wins).",
                                            valueName: "minutes"))
    var syncInterval: Int = 60

    @Option(name: .long, help: ArgumentHelp("Record downloads at once, over all sources.", valueName: "n"))
    var syncDownloads: Int = 4

    @Option(name: .long, help: ArgumentHelp("Seconds one request to an RHEx server may take.", valueName: "seconds"))
    var syncTimeout: Double = 30

    // For tests: shorter leases and backoffs than a real server deserves.
    @Option(name: .long, help: ArgumentHelp("Take backups into this directory (one file each; see `hreaderd restore`).", valueName: "dir"))
    var backupDir: String?

    @Option(name: .long, help: ArgumentHelp("Hours between backups (with --backup-dir).", valueName: "hours"))
    var backupEvery: Double = 24

    @Option(name: .long, help: ArgumentHelp("Backups to keep (with --backup-dir); older ones are removed after a good one.", valueName: "n"))
    var backupKeep: Int = 7

    @Option(name: .long, help: ArgumentHelp("Days the audit trail keeps an event.", valueName: "days"))
    var auditKeepDays: Int = 730

    @OptionGroup var library: LibraryOptions

    @Option(name: .long, help: ArgumentHelp("The library pack that comes with the program (none: no pack). Default: found beside the binary.",
                                            valueName: "dir"))
    var bundledLibrary: String?

    // For tests: a publisher checked more often than daily, a short wait for it.
    @Option(name: .long, help: .hidden) var libraryCheckSeconds: Int64?
    @Option(name: .long, help: .hidden) var libraryTimeout: Double?

    @Option(name: .long, help: .hidden) var syncLease: Int64?
    @Option(name: .long, help: .hidden) var syncRetryBase: Double?

    func validate() throws {
        guard syncInterval >= 0 && syncInterval <= 525_600 else { throw ValidationError("--sync-interval must be 0…525600 minutes") }
        guard (1...32).contains(syncDownloads) else { throw ValidationError("--sync-downloads must be 1…32") }
        guard syncTimeout > 0 && syncTimeout <= 3600 else { throw ValidationError("--sync-timeout must be more than 0 and at most 3600 seconds") }
        guard shutdownGrace >= 0 && shutdownGrace <= 600 else { throw ValidationError("--shutdown-grace must be 0…600 seconds") }
        guard idleLock >= 0 && idleLock <= 7 * 24 * 60 else { throw ValidationError("--idle-lock must be 0…10080 minutes") }
        guard (0...4096).contains(pageCacheMib) else { throw ValidationError("--page-cache-mib must be 0…4096") }
        guard backupEvery >= 0.01 && backupEvery <= 24 * 365 else { throw ValidationError("--backup-every must be 0.01…8760 hours") }
        guard (1...1000).contains(backupKeep) else { throw ValidationError("--backup-keep must be 1…1000") }
        guard (1...36_500).contains(auditKeepDays) else { throw ValidationError("--audit-keep-days must be 1…36500") }
    }

    func run() async throws {
        let logger = Logging.makeLogger()
        defer { Logging.flush() }  // the last lines, and those before an error that ends the run
        // A publisher that cannot be used is refused before anything starts.
        let publisher = try library.publisher()
        let bundled = try BundledLibrary.locate(option: bundledLibrary, environment: global.environment)
        let directory = global.stateDirectory
        try directory.checkExists()
        guard directory.keyVault.exists else { throw StoreError.keyVault(.keyFileMissing(path: directory.keyFilePath)) }

        var storeOptions = Store.Options.timeline
        storeOptions.onCheckpointFailure = { reason in
            logger.warning("the store's write-ahead log could not be copied into it (tried again after the next write): \(reason)")
        }
        storeOptions.onUpgrade = { step in logger.notice("\(step)") }
        let gate = StoreGate()
        if !locked, case .file = global.passwordSource {
            let password = try global.readPassword()
            gate.unlock(with: try Store.open(at: directory, password: password, options: storeOptions))
        }

        var appConfiguration = TimelineApp.Configuration()
        appConfiguration.version = Hreaderd.version
        appConfiguration.publicDirectory = PublicDirectory.locate(option: publicDir, environment: global.environment)
        if appConfiguration.publicDirectory == nil {
            logger.warning("no web app directory found; serving the API only (pass --public-dir)")
        }
        appConfiguration.idleLockSeconds = Int64(idleLock) * 60
        appConfiguration.pageCacheBytes = pageCacheMib << 20
        appConfiguration.backups = backupDir.map {
            BackupSchedule.Settings(directory: $0, everySeconds: Int64((backupEvery * 3600).rounded()), keep: backupKeep)
        }
        appConfiguration.uploads.shutdownGrace = .seconds(shutdownGrace)
        var librarySettings = LibraryUpdateService.Settings()
        if let libraryCheckSeconds { librarySettings.checkIntervalSeconds = max(1, libraryCheckSeconds) }
        if let libraryTimeout { librarySettings.timeoutSeconds = max(0.1, libraryTimeout) }
        let libraryService = LibraryUpdateService(library: Library(directory: directory.path + "/library"), bundled: bundled,
                                                  publisher: publisher, settings: librarySettings, logger: logger)
        appConfiguration.library = LibraryAccess(library: libraryService.library, updates: libraryService)
        let app = TimelineApp(configuration: appConfiguration, gate: gate, unlocker: Unlocker(directory: directory, storeOptions: storeOptions), logger: logger)

        var serverConfiguration = HTTPServer.Configuration()
        serverConfiguration.listeners = try listeners()
        serverConfiguration.eventLoopThreads = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4))
        serverConfiguration.accessLogOutput = Logging.accessLineOutput()
        let router: Router
        do { router = try app.router() } catch { throw CLIError("the web app directory cannot be served: \(error)") }
        let server = HTTPServer(configuration: serverConfiguration, router: router, middleware: app.middleware(), logger: logger)
        // The ports known before listening (given ones, and a socket systemd passed, which may hold a
        // connection already): allowed before the first request can arrive, not after.
        app.hosts.allow(ports: Self.knownPorts(serverConfiguration.listeners), extraNames: listen.map(\.host))
        let addresses: [SocketAddress]
        do { addresses = try await server.start() } catch { throw CLIError("cannot listen: \(error)") }
        // The Host names requests may carry: loopback names and the names we were told to listen on, with
        // the ports actually bound (port 0 becomes a real one).
        app.hosts.allow(ports: addresses.compactMap(\.port), extraNames: listen.map(\.host))
        logger.info(gate.isLocked ? "the store is locked: sign in at the web app" : "the store is unlocked")

        // Imports run while the store is unlocked; while it is locked they wait.
        let imports = JobRunner(configuration: syncConfiguration(), syncers: [.rhex: RHExSyncer(), .fhir: FHIRSyncer()], store: { try? gate.store() },
                                onEvent: { event in Self.log(event, to: logger) })
        // One group runs them all, SIGTERM and SIGINT stop them all: in the reverse of this order, so that
        // systemd hears STOPPING=1 first, the HTTP side drains (an upload in flight is still taken), the uploads'
        // imports are waited for (up to the grace) or stopped, and then the runner's jobs are cut short. Not the
        // runner first: its loop, polling every two seconds, waits for the store's writer, which an upload's
        // import holds until it ends, so the runner's stop waited for the whole import, whatever the grace.
        var services = DaemonServices(logger: logger)
        services.add("import jobs", ImportJobsService(runner: imports))
        services.add("uploads", app.uploads)
        services.add("HTTP server", HTTPService(server: server, addresses: addresses, gracePeriod: .seconds(shutdownGrace), logger: logger))
        if let backups = app.backups { services.add("backups", backups) }
        services.add("audit pruning", AuditPruning(gate: gate, keepSeconds: Int64(auditKeepDays) * 86_400))
        services.add("library", libraryService)
        if idleLock > 0 { services.add("idle lock", IdleLock(app: app)) }
        services.add("systemd supervisor", ServiceSupervisor(environment: global.environment, gate: gate, port: Self.loopbackPort(addresses),
                                                             logger: logger))
        do {
            try await services.run()
        } catch {
            gate.lock()
            throw CLIError(error.description)
        }
        gate.lock()
        logger.info("stopped")
    }

    func syncConfiguration() -> SyncConfiguration {
        var configuration = SyncConfiguration()
        configuration.syncIntervalSeconds = Int64(syncInterval) * 60
        configuration.maxConcurrentDownloads = syncDownloads
        configuration.requestTimeoutSeconds = syncTimeout
        if let syncLease {
            configuration.leaseSeconds = max(1, syncLease)
            configuration.heartbeatSeconds = max(0.2, Double(syncLease) / 4)
        }
        if let syncRetryBase {
            configuration.requestRetry.baseSeconds = syncRetryBase
            configuration.jobRetry.baseSeconds = syncRetryBase
            configuration.pollSeconds = min(configuration.pollSeconds, max(0.05, syncRetryBase))
        }
        return configuration
    }

    static func log(_ event: JobEvent, to logger: Logger) {
        switch event {
        case .started(let job):
            logger.info("import of \(job.sourceName) started (job \(job.id), attempt \(job.attempts))")
        case let .progress(id, source, done, total):
            logger.debug("import of \(source) (job \(id)): \(done) of \(total.map(String.init) ?? "?") patients")
        case .finished(let job):
            switch job.state {
            case .done: logger.info("import of \(job.sourceName) done (job \(job.id)): \(job.counts.summary)")
            case .queued: logger.warning("import of \(job.sourceName) queued again (job \(job.id)): \(job.lastError ?? "stopped")")
            case .running: logger.info("import of \(job.sourceName) stopped (job \(job.id)); it resumes later")
            default: logger.warning("import of \(job.sourceName) \(job.state.rawValue) (job \(job.id)): \(job.lastError ?? "")")
            }
        case .problem(let message):
            logger.warning("\(message)")
        }
    }

    func listeners() throws -> [Listener] {
        var result: [Listener]
        let inherited: [Listener]
        do { inherited = try SystemdSocketActivation.listeners(environment: global.environment) } catch {
            throw CLIError("the sockets passed by systemd are unusable: \(error)")
        }
        if !inherited.isEmpty {
            // As sd_listen_fds(3) does: children must not think the sockets are theirs.
            for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
            result = inherited
        } else {
            result = (listen.isEmpty ? [ListenAddress.default] : listen).map(\.listener)
        }
        if let unixSocket { result.append(.unix(path: unixSocket)) }
        return result
    }

    /// The TCP ports of `listeners` that are known before they listen: a given port (not 0), and the port an
    /// inherited socket is bound to.
    static func knownPorts(_ listeners: [Listener]) -> [Int] {
        listeners.compactMap { listener -> Int? in
            switch listener {
            case let .tcp(_, port): return port == 0 ? nil : port
            case let .inherited(descriptor):
                var storage = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let named = withUnsafeMutablePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
                }
                guard named == 0 else { return nil }
                switch Int32(storage.ss_family) {
                case AF_INET:
                    return withUnsafePointer(to: &storage) {
                        $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
                    }
                case AF_INET6:
                    return withUnsafePointer(to: &storage) {
                        $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
                    }
                default: return nil
                }
            case .unix: return nil
            }
        }
    }

    /// A port the watchdog's probe can reach on 127.0.0.1 (an IPv4 loopback or wildcard listener).
    static func loopbackPort(_ addresses: [SocketAddress]) -> Int? {
        addresses.first { address in
            guard case .v4 = address, let ip = address.ipAddress else { return false }
            return ip == "127.0.0.1" || ip == "0.0.0.0"
        }?.port
    }
}
