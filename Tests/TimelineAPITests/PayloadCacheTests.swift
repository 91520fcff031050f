import HTTPKit
import Testing
@testable import TimelineAPI

/// The timeline's page cache is bounded by bytes, not by a count of pages.
@Suite("page cache")
struct PayloadCacheTests {
    static func key(_ n: Int) -> PayloadCache.Key {
        PayloadCache.Key(patientID: "p", revision: Int64(n), window: TimelineWindow(start: 0, end: Int64(n)))
    }

    @Test("many small pages fit a budget that a count of 64 would not; over it, the oldest go first; a page over a quarter is not kept")
    func byteBudget() {
        let cache = PayloadCache(maximumBytes: 100 * 1000)
        for n in 0..<200 { cache.store(ByteBuffer(bytes: [UInt8](repeating: 1, count: 400)), for: Self.key(n)) }
        #expect(cache.count == 200)
        for n in 200..<260 { cache.store(ByteBuffer(bytes: [UInt8](repeating: 1, count: 400)), for: Self.key(n)) }
        #expect(cache.count == 250)
        #expect(cache.payload(for: Self.key(9)) == nil)
        #expect(cache.payload(for: Self.key(10)) != nil)
        cache.store(ByteBuffer(bytes: [UInt8](repeating: 1, count: 25_001)), for: Self.key(999))
        #expect(cache.payload(for: Self.key(999)) == nil)
        let none = PayloadCache(maximumBytes: 0)
        none.store(ByteBuffer(bytes: [1]), for: Self.key(1))
        #expect(none.count == 0)
    }
}
