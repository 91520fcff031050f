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
///
/// The arena cap is the daemon's alone. A command that runs once and exits (`import-file`, `reimport`) keeps
/// glibc's arenas: a large import's reading thread and the store's writer allocate all the time, and in one
/// shared arena each waited for the other's lock (100,000 FHIR resources: 2.8 s with two arenas, 2.3 s with
/// glibc's; the 1,000,000-entry import's peak memory is the same either way, 213 MiB).
enum MemoryTuning {
    /// Blocks of this size and larger are mapped on their own, and unmapped when freed.
    static let mmapThresholdBytes: Int32 = 128 << 10
    /// Arenas: the daemon's threads are few (event loops, the store's queues).
    static let arenas: Int32 = 2

    /// `daemon`: the process serves (`serve`), for as long as it runs.
    static func apply(daemon: Bool) {
        #if canImport(Glibc)
        // A variable that the person sets (GLIBC_TUNABLES, MALLOC_ARENA_MAX…) is theirs to keep.
        guard getenv("GLIBC_TUNABLES") == nil, getenv("MALLOC_ARENA_MAX") == nil, getenv("MALLOC_MMAP_THRESHOLD_") == nil else { return }
        _ = mallopt(M_MMAP_THRESHOLD, mmapThresholdBytes)
        if daemon { _ = mallopt(M_ARENA_MAX, arenas) }
        #endif
    }
}
