import Foundation
import HTTPKit
import Logging
import Modules
import Records
import HealthRecord
import Store
import Synchronization
import TestSupport
@testable import TimelineAPI

/// A store in a temporary directory, served by the real `TimelineApp` on a real socket, in this process.
final class ServedApp: Sendable {
    let dir: TemporaryDirectory
    let store: Store
    let app: TimelineApp
    let server: HTTPServer
    let client: HTTPTestClient
    let clock: TestClock

    static var utc: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    private init(dir: TemporaryDirectory, store: Store, app: TimelineApp, server: HTTPServer, port: Int, clock: TestClock) {
        self.dir = dir
        self.store = store
        self.app = app
        self.server = server
        self.client = HTTPTestClient(port: port)
        self.clock = clock
    }

    /// Runs `body` against a served store holding `records`, then stops the server.
    /// With `policy`, the access policy runs in front of the routes (sign-in, tokens, Host and Origin
    /// checks); `locked` starts without the store open.
    static func with(records: [PatientRecord] = [], now: Int64 = 1_293_926_399, limits: PostLimits = PostLimits(),
                     policy: Bool = false, locked: Bool = false, idleLockSeconds: Int64 = 0, uploadLimit: Int? = nil,
                     backups: BackupSchedule.Settings? = nil, modules: ModuleCatalog? = nil, streamedPageEntries: Int? = nil,
                     library: LibraryAccess? = nil, _ body: (ServedApp) async throws -> Void) async throws {
        let dir = TemporaryDirectory("hreaderd-api")
        let state = StateDirectory(path: dir.file("state"))
        let (store, _) = try TestStore.create(at: state.path)
        for record in records { _ = try store.importRecordSync(record) }
        let clock = TestClock(now)
        var configuration = TimelineApp.Configuration()
        configuration.calendar = utc
        configuration.postLimits = limits
        configuration.idleLockSeconds = idleLockSeconds
        if let uploadLimit { configuration.uploadLimit = uploadLimit }
        configuration.backups = backups
        if let modules { configuration.modules = modules }
        if let streamedPageEntries { configuration.streamedPageEntries = streamedPageEntries }
        configuration.library = library
        if locked { store.close() }
        let gate = StoreGate(store: locked ? nil : store)
        let app = TimelineApp(configuration: configuration, gate: gate, unlocker: Unlocker(directory: state), now: { clock.now() })
        var serverConfiguration = HTTPServer.Configuration()
        serverConfiguration.listeners = [.tcp(host: "127.0.0.1", port: 0)]
        serverConfiguration.eventLoopThreads = 1
        serverConfiguration.accessLogLevel = .debug
        let server = HTTPServer(configuration: serverConfiguration, router: try app.router(),
                                middleware: policy ? app.middleware() : [], logger: Logger(label: "test"))
        let addresses = try await server.start()
        app.hosts.allow(ports: addresses.compactMap(\.port))
        let served = ServedApp(dir: dir, store: store, app: app, server: server, port: addresses[0].port ?? 0, clock: clock)
        do {
            try await body(served)
        } catch {
            await server.shutdown(gracePeriod: .seconds(1))
            store.close()
            gate.lock()
            throw error
        }
        await server.shutdown(gracePeriod: .seconds(1))
        store.close()
        gate.lock()
    }

    func setNow(_ value: Int64) { clock.set(value) }
}

/// The test clock, shared with the app's `now` closure.
final class TestClock: Sendable {
    private let value: Mutex<Int64>
    init(_ start: Int64) { value = Mutex(start) }
    func now() -> Int64 { value.withLock { $0 } }
    func set(_ new: Int64) { value.withLock { $0 = new } }
}
