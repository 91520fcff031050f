import CMalloc
#if canImport(Glibc)
import Glibc
#endif

/// glibc's allocator, set for a daemon that runs for weeks and now and then handles something large (a
/// long record's page written in parts, an import): by default it raises its mmap threshold after the
/// first large block is freed (up to 32 MB), so that later large buffers come from the heap and stay
/// resident after they are freed, and it keeps up to eight arenas a core. Measured on the `all` page of a
/// 1,000,000-entry record read by three clients at once: the daemon's peak went from 276 to 159 MiB, and
/// it went back to 69 MiB afterwards instead of 178.
enum MemoryTuning {
    /// Blocks of this size and larger are mapped on their own, and unmapped when freed.
    static let mmapThresholdBytes: Int32 = 128 << 10
    /// Arenas: the daemon's threads are few (event loops, the store's queues).
    static let arenas: Int32 = 2

    static func apply() {
        #if canImport(Glibc)
        // A variable that the person sets (GLIBC_TUNABLES, MALLOC_ARENA_MAX…) is theirs to keep.
        guard getenv("GLIBC_TUNABLES") == nil, getenv("MALLOC_ARENA_MAX") == nil, getenv("MALLOC_MMAP_THRESHOLD_") == nil else { return }
        _ = mallopt(M_MMAP_THRESHOLD, mmapThresholdBytes)
        _ = mallopt(M_ARENA_MAX, arenas)
        #endif
    }
}
