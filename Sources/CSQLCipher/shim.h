// SQLITE_HAS_CODEC declares sqlite3_key(), which lets us hand SQLCipher the raw key from a buffer we can
// wipe, instead of a PRAGMA string we cannot.
#define SQLITE_HAS_CODEC 1
// Debian's SQLCipher installs its own sqlite3.h under /usr/include/sqlcipher; name it explicitly so the
// plain libsqlite3 header can never be picked up instead.
#include <sqlcipher/sqlite3.h>

// sqlite3_config() is variadic, which Swift cannot call. Memory statistics off: with them on, every
// allocation SQLite makes takes a global mutex, and the store never reads the statistics. Must run before
// the first connection opens (SQLITE_MISUSE after, which changes nothing).
static inline int hreaderd_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

// No bulk allocation of page cache slots when a connection first reads: each page is allocated when it is
// first cached. SQLite 3.15 (under Debian's SQLCipher 3.4) allocates 100 slots (428 KiB) at once and writes
// the header of every one, so each connection open at idle (the writer, a reader, the library's) kept 428 KiB
// resident that it never used: about 1 MiB of the idle unlocked daemon. Past a hundred pages read, the two
// are alike.
static inline int hreaderd_sqlite3_no_page_cache_bulk(void) {
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
}
