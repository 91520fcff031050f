import Synchronization

/// Slows down password guessing: after `freeFailures` wrong passwords from one address, each further
/// attempt must wait twice as long as the one before (up to `maximumDelay`), and the same holds for all
/// addresses together with a larger allowance. Nothing blocks: an attempt made too early is refused at
/// once with the time to wait.
public final class LoginThrottle: Sendable {
    public struct Settings: Sendable {
        public var freeFailures = 3
        public var freeFailuresOverall = 20
        public var baseDelay: Int64 = 1
        public var maximumDelay: Int64 = 300
        public init() {}
    }

    private struct Record {
        var failures = 0
        var notBefore: Int64 = 0
    }

    private struct State {
        var byAddress: [String: Record] = [:]
        var overall = Record()
    }

    public let settings: Settings
    private let state = Mutex(State())
    /// Addresses remembered at most; beyond this the oldest are forgotten (the overall record remains).
    static let maximumAddresses = 10_000

    public init(settings: Settings = Settings()) { self.settings = settings }

    /// Seconds to wait before `address` may try again; 0 when it may try now.
    public func wait(for address: String, now: Int64) -> Int64 {
        state.withLock { state in
            let local = state.byAddress[address]?.notBefore ?? 0
            return max(0, max(local, state.overall.notBefore) - now)
        }
    }

    public func recordFailure(from address: String, now: Int64) {
        state.withLock { state in
            if state.byAddress[address] == nil, state.byAddress.count >= Self.maximumAddresses {
                state.byAddress.removeAll()
            }
            var record = state.byAddress[address] ?? Record()
            record.failures += 1
            record.notBefore = now + delay(after: record.failures, free: settings.freeFailures)
            state.byAddress[address] = record
            state.overall.failures += 1
            state.overall.notBefore = now + delay(after: state.overall.failures, free: settings.freeFailuresOverall)
        }
    }

    public func recordSuccess(from address: String) {
        state.withLock { state in
            state.byAddress[address] = nil
            state.overall = Record()
        }
    }

    func delay(after failures: Int, free: Int) -> Int64 {
        guard failures >= free else { return 0 }
        let exponent = min(failures - free, 20)
        return min(settings.maximumDelay, settings.baseDelay << Int64(exponent))
    }
}
