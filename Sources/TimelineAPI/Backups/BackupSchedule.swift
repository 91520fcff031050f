import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HealthRecord
import ImportJobs
import Logging
import ServiceLifecycle
import Store
import Synchronization

/// The daemon's own backups: every `every` seconds into `directory` (`hreaderd-YYYYMMDD-HHMMSS.hrdbak`),
/// the newest `keep` kept. A backup that fails is reported and retried after `retrySeconds`, and never
/// removes a good one; while the store is locked, none is taken (the key is not in memory).
///
/// As a `Service`, it runs the schedule until the daemon shuts down (a backup being written is finished
/// first). It is given what it uses: the store's gate, the audit trail, the log and the clock.
public final class BackupSchedule: Service {
    public struct Settings: Sendable, Equatable {
        public var directory: String
        public var everySeconds: Int64
        public var keep: Int
        public var retrySeconds: Int64 = 15 * 60

        public init(directory: String, everySeconds: Int64, keep: Int) {
            self.directory = directory
            self.everySeconds = everySeconds
            self.keep = keep
        }
    }

    /// The last attempt, as `/backups.json` shows it.
    public struct Attempt: Sendable, Equatable {
        public var at: Int64
        public var ok: Bool
        public var file: String?
        public var bytes: Int64?
        public var seconds: Double?
        public var error: String?
    }

    public struct Status: Sendable, Equatable {
        public var last: Attempt?
        public var lastGood: Attempt?
        public var nextAt: Int64?
    }

    public let settings: Settings
    static let suffix = ".hrdbak"
    private let state = Mutex(Status())
    /// The store, while it is open.
    private let gate: StoreGate
    /// Where each backup, good or failed, is noted.
    private let audit: AuditTrail
    private let logger: Logger
    private let now: @Sendable () -> Int64

    public init(settings: Settings, gate: StoreGate, audit: AuditTrail, logger: Logger, now: @escaping @Sendable () -> Int64 = { Store.now() }) {
        self.settings = settings
        self.gate = gate
        self.audit = audit
        self.logger = logger
        self.now = now
    }

    public var status: Status { state.withLock { $0 } }

    /// The backups in the directory, newest first (name, bytes).
    public func files() -> [(name: String, bytes: Int64)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: settings.directory)) ?? []
        return names.filter { $0.hasPrefix("hreaderd-") && $0.hasSuffix(Self.suffix) }.sorted(by: >).map { name in
            (name, Self.fileInfo(settings.directory + "/" + name)?.bytes ?? 0)
        }
    }

    /// A file's size and modification time (epoch seconds), from lstat(2) (backups are never links).
    static func fileInfo(_ path: String) -> (bytes: Int64, modified: Int64)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (Int64(info.st_size), Int64(info.st_mtim.tv_sec))
    }

    /// Until the daemon shuts down (or the task is cancelled): a backup when one is due and the store is open.
    public func run() async {
        await cancelWhenGracefulShutdown { [self] in await runSchedule() }
    }

    private func runSchedule() async {
        // The first is due a period after the newest backup there is (a restart does not take one at once),
        // and not before a minute has passed.
        let newest = files().first.flatMap { Self.fileInfo(settings.directory + "/" + $0.name)?.modified }
        let first = max(now() + 60, (newest ?? 0) + settings.everySeconds)
        state.withLock { $0.nextAt = first }
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(10))
            guard let due = status.nextAt, now() >= due, let store = try? gate.store() else { continue }
            await backUp(store: store)
        }
    }

    /// One backup now (also the schedule's), then the old ones beyond `keep` removed. Written on a thread of
    /// its own: a copy of the whole store is no work for the concurrency pool.
    @discardableResult
    public func backUp(store: Store, actor: String = "daemon") async -> Attempt {
        let now = self.now()
        let name = "hreaderd-" + Self.stamp(now) + Self.suffix
        let path = settings.directory + "/" + name
        let started = Date()
        let settings = self.settings
        let result: Result<BackupFile.Info, StoreError> = await DetachedThread.run(named: "backup") {
            do {
                try FileManager.default.createDirectory(atPath: settings.directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                return .failure(StoreError.io("cannot create \(settings.directory): \(error)"))
            }
            do throws(StoreError) { return .success(try store.backup(to: path, now: now)) } catch { return .failure(error) }
        }
        var attempt = Attempt(at: now, ok: false)
        switch result {
        case .success(let info):
            attempt = Attempt(at: now, ok: true, file: name, bytes: info.fileBytes, seconds: Date().timeIntervalSince(started))
            removeOld()
            await audit.record(AuditEvent(at: now, action: .backup, actor: actor, detail: "\(name), \(info.fileBytes) bytes"), store: store)
            logger.info("backup written: \(name) (\(info.fileBytes) bytes)")
        case .failure(let error):
            attempt.error = error.description
            await audit.record(AuditEvent(at: now, action: .backupFailed, actor: actor, detail: String(error.description.prefix(120))), store: store)
            logger.error("backup failed; the previous backups are kept, and it is tried again in \(settings.retrySeconds / 60) minutes: \(error)")
        }
        state.withLock { status in
            status.last = attempt
            if attempt.ok { status.lastGood = attempt }
            status.nextAt = now + (attempt.ok ? settings.everySeconds : settings.retrySeconds)
        }
        return attempt
    }

    /// Only after a good backup: the oldest beyond `keep` go.
    private func removeOld() {
        for old in files().dropFirst(max(1, settings.keep)) {
            unlink(settings.directory + "/" + old.name)
        }
    }

    static func stamp(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return zeroPadded(Int(parts.tm_year) + 1900, 4) + zeroPadded(Int(parts.tm_mon) + 1, 2) + zeroPadded(Int(parts.tm_mday), 2) + "-"
            + zeroPadded(Int(parts.tm_hour), 2) + zeroPadded(Int(parts.tm_min), 2) + zeroPadded(Int(parts.tm_sec), 2)
    }
}
