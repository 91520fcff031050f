import FoundationEssentials
import HTTPKit

/// The query parameters the list routes share (`/search.json`, `/audit.json`): a date range as `end` takes
/// a time, and whole numbers in a range (a page size, a cursor), each with its clear 400.
enum ListQuery {
    static let badDate = HTTPError(.badRequest, code: "bad_date",
                                   message: "from and to must be RFC 3339 timestamps, YYYY-MM-DD days or epoch seconds.")
    static let badCursor = HTTPError(.badRequest, code: "bad_cursor", message: "cursor must be the next_cursor of an earlier page.")

    static func badLimit(_ maximum: Int) -> HTTPError {
        HTTPError(.badRequest, code: "bad_limit", message: "limit must be a whole number from 1 to \(maximum).")
    }

    /// `from` (a day's first second) and `to` (a day's last), when given.
    static func range(_ request: Request, calendar: Calendar) throws(HTTPError) -> (from: Int64?, to: Int64?) {
        func time(_ name: String, dayStart: Bool) throws(HTTPError) -> Int64? {
            guard let text = request.query[name], !text.isEmpty else { return nil }
            guard let value = WindowEnd.parse(text, calendar: calendar, dayStart: dayStart) else { throw badDate }
            return value
        }
        return (try time("from", dayStart: true), try time("to", dayStart: false))
    }

    /// A whole number in `range`, `value` when absent.
    static func number(_ text: String?, default value: Int, in range: ClosedRange<Int>, error: HTTPError) throws(HTTPError) -> Int {
        guard let text, !text.isEmpty else { return value }
        guard text.utf8.count <= 7, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let number = Int(text), range.contains(number) else { throw error }
        return number
    }
}
