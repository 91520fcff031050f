#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
@testable import ImportJobs
import Testing

/// Threads of their own, each named for what it does.
@Suite("detached threads")
struct DetachedThreadTests {
    /// The calling thread's name, as `top -H` and `perf` read it.
    static func ownName() -> String {
        let file = open("/proc/thread-self/comm", O_RDONLY)
        guard file >= 0 else { return "?" }
        defer { close(file) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(file, &bytes, bytes.count)
        return String(decoding: bytes.prefix(max(0, count)).filter { $0 != 0x0A }, as: UTF8.self)
    }

    @Test("a thread carries its name; a long one is cut to what Linux keeps, at a whole character")
    func names() async {
        #expect(await DetachedThread.run(named: "fhir-mapping") { Self.ownName() } == "fhir-mapping")
        #expect(await DetachedThread.run(named: "a-name-longer-than-fifteen") { Self.ownName() } == "a-name-longer-t")
        #expect(await DetachedThread.run { Self.ownName() } == "hreaderd-work")
        #expect(DetachedThread.cut("éééééééé") == "ééééééé")
        #expect(DetachedThread.cut("éééééééé").utf8.count == 14)
        #expect(DetachedThread.cut("fifteen-bytes-x") == "fifteen-bytes-x")
    }
}
