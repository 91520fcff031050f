// glibc's <malloc.h> (mallopt and its parameters, malloc_trim), which Swift's Glibc module leaves out: the
// daemon's allocator settings (hreaderd's MemoryTuning) and the memory a large import freed given back
// (ImportJobs' FreedMemory). Part of libc: nothing to link.
#include <malloc.h>
