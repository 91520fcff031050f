import ServiceLifecycle

/// The daemon's idle lock as a service: locks the store once no authenticated request came for the app's
/// `idleLockSeconds` (`TimelineApp.runIdleLock`), until the daemon shuts down.
public struct IdleLock: Service {
    let app: TimelineApp

    public init(app: TimelineApp) {
        self.app = app
    }

    public func run() async {
        await cancelWhenGracefulShutdown { [app] in await app.runIdleLock() }
    }
}
