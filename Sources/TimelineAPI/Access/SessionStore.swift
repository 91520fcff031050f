import FoundationEssentials
import HealthRecord
import Store
import Synchronization

/// Browser sessions, in memory only: a restart or a lock ends them all. A session is a random 256-bit
/// value in an HttpOnly, SameSite=Strict cookie.
public final class SessionStore: Sendable {
    public static let cookieName = "hreaderd_session"

    private struct State {
        var sessions: [String: Int64] = [:] // id → last seen
        var lastActivity: Int64
    }

    private let state: Mutex<State>

    public init(now: Int64) { state = Mutex(State(lastActivity: now)) }

    public func create(now: Int64) throws(StoreError) -> String {
        let id = try StableID.secret()
        state.withLock {
            $0.sessions[id] = now
            $0.lastActivity = now
        }
        return id
    }

    /// Whether `id` is a live session; marks it (and the daemon) active, unless the request was not a
    /// person's (`active` false: a page polling in the background).
    public func validate(_ id: String, now: Int64, active: Bool = true) -> Bool {
        state.withLock { state in
            guard state.sessions[id] != nil else { return false }
            guard active else { return true }
            state.sessions[id] = now
            state.lastActivity = now
            return true
        }
    }

    public func end(_ id: String) { _ = state.withLock { $0.sessions.removeValue(forKey: id) } }

    public func endAll() { state.withLock { $0.sessions.removeAll() } }

    /// Authenticated use by a token counts as activity too (for the idle lock).
    public func noteActivity(now: Int64) { state.withLock { $0.lastActivity = max($0.lastActivity, now) } }

    public var lastActivity: Int64 { state.withLock { $0.lastActivity } }
    public var count: Int { state.withLock { $0.sessions.count } }

    /// The session id from a `Cookie` header, if any.
    static func sessionID(fromCookieHeaders headers: [String]) -> String? {
        for header in headers {
            for part in header.split(separator: ";") {
                let pair = part.trimmedWhitespace
                if pair.hasPrefix(cookieName + "=") { return String(pair.dropFirst(cookieName.count + 1)) }
            }
        }
        return nil
    }
}
