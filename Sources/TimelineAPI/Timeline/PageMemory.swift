import HTTPKit
#if canImport(Glibc)
import Glibc
#endif

/// The buffer a whole page is written into, which the response then sends and the payload cache keeps.
/// The daemon maps every block of 128 KiB or more on its own (`MemoryTuning`), so each 4 KiB of a large page
/// is a page fault when first written: a buffer of `TimelinePayload.hugePageBytes` or more asks to be backed by
/// transparent huge pages where the kernel gives them on request (`madvise`, Debian's default), one fault a
/// 2 MiB. Where it does not, the advice changes nothing.
enum PageMemory {
    static let hugePage = 2 << 20

    static func buffer(capacity: Int) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: capacity)
        #if canImport(Glibc)
        if capacity >= TimelinePayload.hugePageBytes {
            buffer.withUnsafeMutableWritableBytes { raw in
                guard let base = raw.baseAddress else { return }
                // Only whole huge pages inside the block: the advice splits the mapping there.
                let start = (Int(bitPattern: base) + hugePage - 1) & ~(hugePage - 1)
                let end = (Int(bitPattern: base) + raw.count) & ~(hugePage - 1)
                if end > start { _ = madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_HUGEPAGE) }
            }
        }
        #endif
        return buffer
    }
}
