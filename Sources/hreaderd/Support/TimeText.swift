import Foundation

/// Times as the command line prints them.
enum TimeText {
    /// A moment: RFC 3339 in UTC (`2026-11-24T09:30:00Z`).
    static func instant(_ seconds: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// A calendar day in UTC (`1939-03-08`): birthdates are days, not moments.
    static func day(_ seconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
