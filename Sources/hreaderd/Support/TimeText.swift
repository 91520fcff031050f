import FoundationEssentials

/// Times as the command line prints them.
enum TimeText {
    /// A moment: RFC 3339 in UTC (`2026-11-24T09:30:00Z`).
    static func instant(_ seconds: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(Date.ISO8601FormatStyle())
    }

    /// A calendar day in UTC (`1939-03-08`): birthdates are days, not moments.
    static func day(_ seconds: Int64) -> String { String(instant(seconds).prefix(10)) }
}
