/// The `page` parameter: how far back the window reaches from its end.
public enum TimelinePage: String, Sendable, CaseIterable {
    case day, week, month, year, decade, all

    /// The page a request names. Written out: the synthesized initializer searched a table of the names on every
    /// request (issue 41), where these comparisons of short strings are a few instructions each.
    public init?(rawValue: String) {
        switch rawValue {
        case "day": self = .day
        case "week": self = .week
        case "month": self = .month
        case "year": self = .year
        case "decade": self = .decade
        case "all": self = .all
        default: return nil
        }
    }
}
