import FoundationEssentials
import Synchronization

/// Windows and `end` values computed recently. A client that polls a page sends the same `end` (or none,
/// and then the end is the current second) each time; parsing a `YYYY-MM-DD` end and stepping back a
/// calendar month or year cost calendar arithmetic that each request would otherwise repeat. Both answers
/// depend only on their inputs and the daemon's calendar, which is fixed for the daemon's life.
final class TimelineWindowMemo: Sendable {
    static let maximumEntries = 64

    private struct WindowKey: Hashable {
        var page: TimelinePage
        var end: Int64
        var earliest: Int64?
    }

    let calendar: Calendar
    private let ends = Mutex<[String: Int64]>([:])
    private let windows = Mutex<[WindowKey: TimelineWindow]>([:])

    init(calendar: Calendar) { self.calendar = calendar }

    /// `WindowEnd.parse(text)`: nil for text that is not a time.
    func end(_ text: String) -> Int64? {
        if let known = ends.withLock({ $0[text] }) { return known }
        guard let value = WindowEnd.parse(text, calendar: calendar) else { return nil }
        ends.withLock { Self.insert(value, for: text, into: &$0) }
        return value
    }

    /// `TimelineWindow.of(page, endingAt: end, earliest: earliest)`.
    func window(_ page: TimelinePage, endingAt end: Int64, earliest: Int64?) -> TimelineWindow {
        let key = WindowKey(page: page, end: end, earliest: earliest)
        if let known = windows.withLock({ $0[key] }) { return known }
        let window = TimelineWindow.of(page, endingAt: end, earliest: earliest, calendar: calendar)
        windows.withLock { Self.insert(window, for: key, into: &$0) }
        return window
    }

    private static func insert<Key: Hashable, Value>(_ value: Value, for key: Key, into memo: inout [Key: Value]) {
        if memo.count >= maximumEntries { memo.removeAll(keepingCapacity: true) }
        memo[key] = value
    }
}
