/// The `page` parameter: how far back the window reaches from its end.
public enum TimelinePage: String, Sendable, CaseIterable {
    case day, week, month, year, decade, all
}
