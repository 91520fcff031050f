import FoundationEssentials
import HealthRecord
import ImportJobs
import Library
import Logging
import ServiceLifecycle
import Store
import Synchronization
import TimelineAPI

/// The daemon's library (`STATE_DIR/library/`) as a service:
///
/// 1. at start, the pack that comes with the program is installed when the library has none or an older one
///    (on a thread of its own: the daemon is ready before it is done);
/// 2. with a publisher (`--library-url`), its signed manifest is checked at start and then every
///    `checkIntervalSeconds` (a day); a newer pack signed by a trusted key is recorded as `available`, never
///    installed unasked, and a failed check waits for the next one;
/// 3. `POST /library/update` (`startUpdate`) asks for an update, which this service runs: the publisher is
///    asked again, the pack downloaded (resumed after a cut), verified and switched to (`LibraryUpdater`);
///    its progress and its end, `installed` or `failed` with the reason, are in `/library.json` and the log.
///    The service never retries a failed update by itself;
/// 4. the library's connection is closed after `idleCloseSeconds` unused, to give its memory back.
///
/// Shutdown cancels a download (its part is kept, to resume) and waits for an install in progress.
final class LibraryUpdateService: Service, LibraryUpdates {
    struct Settings: Sendable {
        var checkIntervalSeconds: Int64 = 86_400
        var idleCloseSeconds: Int64 = 300
        /// How often the service looks whether the connection is idle.
        var tickSeconds: Int64 = 60
        var timeoutSeconds: Double = 30
        var downloadAttempts = 3
        var pauseBetweenAttempts: Duration = .seconds(1)
    }

    let library: Library
    let bundled: BundledLibrary?
    let publisher: LibraryPublisher?
    let settings: Settings
    private let logger: Logger
    private let now: @Sendable () -> Int64
    private let state: Mutex<(status: LibraryUpdateStatus, pending: Bool)>
    private let wakeup = Wakeup()

    init(library: Library, bundled: BundledLibrary?, publisher: LibraryPublisher?, settings: Settings = Settings(), logger: Logger,
         now: @escaping @Sendable () -> Int64 = { Store.now() }) {
        self.library = library
        self.bundled = bundled
        self.publisher = publisher
        self.settings = settings
        self.logger = logger
        self.now = now
        state = Mutex((LibraryUpdateStatus(publisherURL: publisher?.text), false))
    }

    var updater: LibraryUpdater? {
        publisher.map { publisher in
            LibraryUpdater(publisher: publisher, directory: library.directory, timeoutSeconds: settings.timeoutSeconds,
                           downloadAttempts: settings.downloadAttempts, pauseBetweenAttempts: settings.pauseBetweenAttempts)
        }
    }

    // MARK: LibraryUpdates

    func status() -> LibraryUpdateStatus { state.withLock { $0.status } }

    func startUpdate() throws(LibraryUpdateRefusal) -> LibraryUpdateStatus {
        guard publisher != nil else { throw .noPublisher }
        let now = self.now()
        let status = try state.withLock { (state) throws(LibraryUpdateRefusal) -> LibraryUpdateStatus in
            guard !state.status.isRunning, !state.pending else { throw .running }
            state.pending = true
            state.status.state = .downloading
            state.status.done = 0
            state.status.total = state.status.available?.bytes
            state.status.error = nil
            state.status.errorCode = nil
            state.status.startedAt = now
            state.status.finishedAt = nil
            return state.status
        }
        wakeup.signal()
        return status
    }

    // MARK: The service

    func run() async {
        await cancelWhenGracefulShutdown { [self] in await loop() }
    }

    private func loop() async {
        await installBundled()
        var nextCheck = publisher == nil ? Int64.max : now()
        while !Task.isCancelled {
            let generation = wakeup.generation
            if state.withLock({ $0.pending }) {
                await update()
                nextCheck = state.withLock { $0.status.check.nextAt } ?? now() + settings.checkIntervalSeconds
                continue
            }
            if now() >= nextCheck {
                nextCheck = await check()
            }
            if library.closeIfIdle(seconds: settings.idleCloseSeconds) { logger.debug("library: its connection was idle, and is closed") }
            let wait = min(max(1, nextCheck - now()), settings.tickSeconds)
            await wakeup.wait(since: generation, upTo: Double(wait))
        }
    }

    /// The bundled pack, when the library has none or an older one.
    func installBundled() async {
        guard let bundled else {
            if (try? library.installed()) == nil { logger.notice("library: no pack is installed and none came with the program (--bundled-library)") }
            return
        }
        let directory = library.directory
        let result: Result<InstalledPack?, LibraryError> = await DetachedThread.run(named: "library-update") {
            do throws(LibraryError) { return .success(try bundled.installIfNewer(into: directory)) } catch { return .failure(error) }
        }
        switch result {
        case .success(let pack?):
            logger.info("library: installed the bundled pack, version \(pack.version) (\(pack.counts.topics) topics)")
        case .success(nil):
            break
        case .failure(let error):
            logger.error("library: the bundled pack in \(bundled.folder) was not installed: \(error)")
        }
    }

    /// A check of the publisher: a newer pack is recorded as available. Returns when the next check is due,
    /// recorded with the check's time in one step (a reader never sees a check without its next one).
    @discardableResult
    func check() async -> Int64 {
        let at = now()
        let next = at + settings.checkIntervalSeconds
        guard let updater else { return next }
        let fetcher = HTTPFetcher(timeoutSeconds: settings.timeoutSeconds, maxConnectionsPerHost: 1)
        defer { fetcher.close() }
        do {
            let offer = try await updater.check(fetcher: fetcher)
            let installed = try? library.installed()
            let newer = installed.map { offer.manifest.version > $0.version } ?? true
            let previous = state.withLock { state -> PackVersion? in
                let previous = state.status.available?.version
                state.status.available = newer ? Self.offer(offer) : nil
                state.status.check = LibraryUpdateStatus.Check(at: at, nextAt: next)
                return previous
            }
            if newer, previous != offer.manifest.version {
                logger.notice("library: version \(offer.manifest.version) is available from \(updater.publisher.text) (\(offer.manifest.database.bytes) bytes); POST /library/update installs it")
            }
        } catch {
            state.withLock { state in
                state.status.check = LibraryUpdateStatus.Check(at: at, nextAt: next, error: error.description, errorCode: error.code)
            }
            logger.warning("library: the check of \(updater.publisher.text) failed (\(error.code)): \(error); it is tried again at the next check")
        }
        return next
    }

    /// An update asked for: check again, download, verify, install.
    func update() async {
        guard let updater else { return }
        let fetcher = HTTPFetcher(timeoutSeconds: settings.timeoutSeconds, maxConnectionsPerHost: 1)
        defer { fetcher.close() }
        let started = ContinuousClock.now
        logger.info("library: updating from \(updater.publisher.text)")
        let result: Result<InstalledPack, LibraryUpdateError>
        do {
            result = .success(try await updater.update(fetcher: fetcher) { [self] phase in progress(phase) })
        } catch {
            result = .failure(error)
        }
        let at = now()
        state.withLock { state in
            state.pending = false
            state.status.finishedAt = at
            state.status.check.at = at
            state.status.check.nextAt = at + settings.checkIntervalSeconds  // the update asked the publisher
            switch result {
            case .success(let pack):
                state.status.state = .installed
                if let total = state.status.total { state.status.done = total }
                state.status.check.error = nil
                state.status.check.errorCode = nil
                if let offered = state.status.available, offered.version <= pack.version { state.status.available = nil }
            case .failure(let error):
                state.status.state = .failed
                state.status.error = error.description
                state.status.errorCode = error.code
                if case .noUpdate = error { state.status.available = nil }
            }
        }
        switch result {
        case .success(let pack):
            let elapsed = started.duration(to: .now)
            let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
            logger.notice("library: installed version \(pack.version) from \(updater.publisher.text) (\(pack.counts.topics) topics; checked, downloaded, verified and switched in \(milliseconds) ms)")
        case .failure(let error):
            logger.error("library: the update failed (\(error.code)): \(error)")
        }
    }

    private func progress(_ phase: LibraryUpdater.Phase) {
        state.withLock { state in
            switch phase {
            case .checking:
                state.status.state = .downloading
            case let .downloading(done, total):
                state.status.state = .downloading
                state.status.done = done
                state.status.total = total
            case .verifying:
                state.status.state = .verifying
            }
        }
    }

    static func offer(_ offer: LibraryUpdater.Offer) -> LibraryUpdateStatus.Offer {
        LibraryUpdateStatus.Offer(version: offer.manifest.version, bytes: offer.manifest.database.bytes, created: offer.manifest.created,
                                  publisher: offer.manifest.publisher)
    }
}
