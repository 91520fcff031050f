#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The process's entry point: `Hreaderd.main()` runs as a task on the concurrency pool, and the main
/// thread waits, parked, until it exits the process.
///
/// Why not an `async` `@main`: its main thread hands itself to `dispatch_main()`, which ends it at once
/// with `pthread_exit`, and glibc ends a thread by unwinding its stack through the binary's unwind tables
/// (a binary search of the 620 KiB `.eh_frame_hdr`). That search alone left about 0.4 MiB of those tables
/// resident in every idle daemon (perf, page faults by address). Nothing in the program runs on the main
/// actor, so the main thread has nothing else to do.
@main
enum Entry {
    static func main() {
        Task.detached {
            await Hreaderd.main()
            exit(0)
        }
        while true { pause() }
    }
}
