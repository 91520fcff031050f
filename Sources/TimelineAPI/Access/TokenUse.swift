import Synchronization

/// When each API token was last noted as used. Recording use is a write to the store, so it is done at
/// most once per `interval` per token, not on every request.
final class TokenUse: Sendable {
    static let interval: Int64 = 60
    private let recorded = Mutex<[String: Int64]>([:])

    func shouldRecord(_ tokenID: String, now: Int64) -> Bool {
        recorded.withLock { recorded in
            if let last = recorded[tokenID], now - last < Self.interval { return false }
            if recorded.count > 10_000 { recorded.removeAll() }
            recorded[tokenID] = now
            return true
        }
    }
}
