// SQLITE_HAS_CODEC declares sqlite3_key(), which lets us hand SQLCipher the raw key from a buffer we can
// wipe, instead of a PRAGMA string we cannot.
#define SQLITE_HAS_CODEC 1
// Debian's SQLCipher installs its own sqlite3.h under /usr/include/sqlcipher; name it explicitly so the
// plain libsqlite3 header can never be picked up instead.
#include <sqlcipher/sqlite3.h>
