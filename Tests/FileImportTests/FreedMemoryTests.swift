#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
@testable import ImportJobs
import Testing

/// The memory a large import freed, given back to the system.
@Suite("freed memory given back")
struct FreedMemoryTests {
    /// This process's resident memory, in bytes (`/proc/self/statm`).
    static func residentBytes() -> Int {
        let file = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return 0 }
        defer { close(file) }
        var bytes = [UInt8](repeating: 0, count: 128)
        let count = read(file, &bytes, bytes.count)
        let fields = String(decoding: bytes.prefix(max(0, count)), as: UTF8.self).split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    #if canImport(Glibc)
    @Test("memory freed in pieces all over the heap stays resident until it is given back")
    func givenBack() async {
        // As an import leaves it: 128 MiB in pages of a page cache, a small block still in use after every
        // 64 of them, so that none of it lies at the top of the heap, where glibc gives memory back by itself.
        let (blocks, blockBytes, pinEvery) = (32_768, 4_096, 64)
        let (afterFree, afterGivingBack) = await DetachedThread.run { () -> (Int, Int) in
            var pages: [UnsafeMutableRawPointer] = []
            var pins: [UnsafeMutableRawPointer] = []
            pages.reserveCapacity(blocks)
            for index in 0..<blocks {
                let page = malloc(blockBytes)!
                memset(page, 0x5a, blockBytes)
                pages.append(page)
                if index % pinEvery == pinEvery - 1 { pins.append(malloc(16)!) }
            }
            for page in pages { free(page) }
            let afterFree = Self.residentBytes()
            FreedMemory.giveBack()
            let afterGivingBack = Self.residentBytes()
            for pin in pins { free(pin) }
            return (afterFree, afterGivingBack)
        }
        // At least half of it: tests running beside this one allocate too.
        #expect(afterFree - afterGivingBack >= blocks * blockBytes / 2,
                "resident \(afterFree >> 20) MiB after the free, \(afterGivingBack >> 20) MiB after giving it back")
    }
    #endif
}
