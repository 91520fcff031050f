// glibc's <malloc.h> (mallopt and its parameters), which Swift's Glibc module leaves out: the daemon's
// allocator settings (hreaderd's MemoryTuning). Part of libc: nothing to link.
#include <malloc.h>
