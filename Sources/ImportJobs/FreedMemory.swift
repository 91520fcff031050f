import CMalloc

/// Gives back to the system the memory a large import has freed. glibc keeps freed memory in its arenas
/// for later allocations, and returns to the system only what lies at the top of a heap: after a
/// 100,000-resource FHIR upload (its bundle's resources, the writer's 128 MiB page cache, freed in pieces
/// all over the heaps) the daemon stayed at 230 MiB resident, 210 MiB of it freed memory it would not
/// need again for days. `malloc_trim` hands every whole free page back (`MADV_DONTNEED`); the daemon was then
/// at 53 MiB.
public enum FreedMemory {
    /// Call after a large import's memory is freed, on a thread that may wait: each arena is locked while it
    /// is trimmed. Returns whether any memory went back.
    @discardableResult
    public static func giveBack() -> Bool {
        #if canImport(Glibc)
        return malloc_trim(0) != 0
        #else
        return false
        #endif
    }
}
