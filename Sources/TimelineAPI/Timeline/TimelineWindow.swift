import FoundationEssentials

/// A closed time window `[start, end]` in epoch seconds.
public struct TimelineWindow: Sendable, Hashable {
    public var start: Int64
    public var end: Int64

    public init(start: Int64, end: Int64) {
        self.start = start
        self.end = end
    }

    /// The window of `page` that ends at `end`: 1 day, 7 days, 1 calendar month, 1 calendar year or 10
    /// calendar years before it, in `calendar`'s time zone (the daemon's). `all` starts at `earliest`
    /// (the earliest time of any of the patient's entries or posts), or at `end` when there is none.
    public static func of(_ page: TimelinePage, endingAt end: Int64, earliest: Int64?, calendar: Calendar) -> TimelineWindow {
        let endDate = Date(timeIntervalSince1970: TimeInterval(end))
        let component: (Calendar.Component, Int)
        switch page {
        case .day: return TimelineWindow(start: end - 86_400, end: end)
        case .week: return TimelineWindow(start: end - 7 * 86_400, end: end)
        case .month: component = (.month, -1)
        case .year: component = (.year, -1)
        case .decade: component = (.year, -10)
        case .all: return TimelineWindow(start: min(earliest ?? end, end), end: end)
        }
        let startDate = calendar.date(byAdding: component.0, value: component.1, to: endDate) ?? endDate
        return TimelineWindow(start: Int64(startDate.timeIntervalSince1970.rounded(.down)), end: end)
    }
}
