import CMalloc
#if canImport(Glibc)
import Glibc
#endif

/// glibc's allocator, set for a daemon that runs for weeks and now and then handles something large (a
/// long record's page written in parts, an import): by default it raises its mmap threshold after the
/// first large block is freed (up to 32 MB), so that later large buffers come from the heap and stay
/// resident after they are freed. Fixed here at 128 KiB. Measured on the `all` page of a 1,000,000-entry
/// record read by three clients at once, with the arena cap below: the daemon's peak went from 276 to 159 MiB,
/// and it went back to 69 MiB afterwards instead of 178. The cap alone changes that page's peak by nothing
/// measurable today (80–82 MiB with two to sixteen arenas).
///
/// glibc's arenas are kept as they are (up to eight a core). The daemon capped them at two for a while:
/// its threads then shared one arena besides the main thread's, and an upload's mapping thread and the
/// store's writer, which allocate all the time, contended for its lock and its cache lines. Measured on a
/// 100,000-resource FHIR upload (2 cores): the daemon's CPU time was 5.03 s with two arenas, 4.54 s with
/// four and 4.50 s with glibc's (medians of four), and its peak memory the same (about 320 MiB); idle
/// memory and the `all` page's peak above did not change either.
enum MemoryTuning {
    /// Blocks of this size and larger are mapped on their own, and unmapped when freed.
    static let mmapThresholdBytes: Int32 = 128 << 10

    static func apply() {
        #if canImport(Glibc)
        // A variable that the person sets (GLIBC_TUNABLES, MALLOC_MMAP_THRESHOLD_…) is theirs to keep.
        guard getenv("GLIBC_TUNABLES") == nil, getenv("MALLOC_MMAP_THRESHOLD_") == nil else { return }
        _ = mallopt(M_MMAP_THRESHOLD, mmapThresholdBytes)
        #endif
    }
}
