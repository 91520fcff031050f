import Testing
@testable import TimelineAPI

@Suite("Timeline page names")
struct TimelinePageTests {
    @Test("every page is found by its name, and only by it")
    func names() {
        for page in TimelinePage.allCases {
            #expect(TimelinePage(rawValue: page.rawValue) == page)
        }
        for name in ["", "Year", "years", "al", "all ", "decades"] {
            #expect(TimelinePage(rawValue: name) == nil, "\(name)")
        }
    }
}
