import Foundation
import Testing
@testable import TimelineAPI

@Suite("Timeline windows and the end parameter")
struct WindowTests {
    static var utc: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    // 2011-01-01T23:59:59Z
    static let end: Int64 = 1_293_926_399

    @Test("each page reaches back 1 day, 7 days, 1 calendar month, 1 calendar year or 10 calendar years",
          arguments: [
            (TimelinePage.day, Int64(1_293_839_999)),      // 2010-12-31T23:59:59Z
            (.week, 1_293_321_599),                         // 2010-12-25T23:59:59Z
            (.month, 1_291_247_999),                        // 2010-12-01T23:59:59Z
            (.year, 1_262_390_399),                         // 2010-01-01T23:59:59Z
            (.decade, 978_393_599),                         // 2001-01-01T23:59:59Z
          ])
    func pages(_ page: TimelinePage, expectedStart: Int64) {
        let window = TimelineWindow.of(page, endingAt: Self.end, earliest: nil, calendar: Self.utc)
        #expect(window.start == expectedStart)
        #expect(window.end == Self.end)
    }

    @Test("a calendar month back from March 31 ends in February, not in March")
    func monthArithmetic() {
        let march31 = WindowEnd.parse("2011-03-31", calendar: Self.utc)!
        let window = TimelineWindow.of(.month, endingAt: march31, earliest: nil, calendar: Self.utc)
        #expect(window.start == WindowEnd.parse("2011-02-28", calendar: Self.utc)!)
    }

    @Test("all starts at the earliest time, or at the end when the patient has nothing")
    func allPage() {
        #expect(TimelineWindow.of(.all, endingAt: 100, earliest: -5_000, calendar: Self.utc) == TimelineWindow(start: -5_000, end: 100))
        #expect(TimelineWindow.of(.all, endingAt: 100, earliest: nil, calendar: Self.utc) == TimelineWindow(start: 100, end: 100))
    }

    @Test("calendar arithmetic follows the daemon's time zone")
    func timeZone() {
        var newYork = Calendar(identifier: .gregorian)
        newYork.timeZone = TimeZone(identifier: "America/New_York")!
        let end = WindowEnd.parse("2011-01-01", calendar: newYork)!
        #expect(end == 1_293_944_399) // 2011-01-01T23:59:59-05:00
    }

    @Test("end accepts RFC 3339, a calendar day and epoch seconds", arguments: [
        ("2011-01-01T00:00:00Z", Int64(1_293_840_000)),
        ("2011-01-01T01:00:00+01:00", 1_293_840_000),
        ("2011-01-01T00:00:00.750Z", 1_293_840_000),
        ("2010-12-31t19:30:00-04:30", 1_293_840_000),
        ("2012-02-29T00:00:00Z", 1_330_473_600),
        ("1969-12-31T23:59:59Z", -1),
        ("2011-01-01", 1_293_926_399),
        ("1293840000", 1_293_840_000),
        ("-86400", -86_400),
        ("0", 0),
    ])
    func endFormats(_ text: String, expected: Int64) {
        #expect(WindowEnd.parse(text, calendar: Self.utc) == expected)
    }

    @Test("a bad end is refused", arguments: [
        "", "yesterday", "2011-13-01", "2011-02-30", "2011-1-1", "12abc", "1e9", "99999999999999999999",
        "2011-01-01T25:00:00Z", String(repeating: "1", count: 65), "--5",
        "2011-02-29T00:00:00Z", "2011-01-01T00:60:00Z", "2011-01-01T00:00:00", "2011-01-01T00:00:00+0100", "2011-01-01T00:00:00.Z",
        "2011-01-01T00:00:00Zjunk", "2011-01-01 00:00:00Z",
    ])
    func badEnd(_ text: String) {
        #expect(WindowEnd.parse(text, calendar: Self.utc) == nil)
    }
}
