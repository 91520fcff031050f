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
