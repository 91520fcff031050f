// A pass-through SQLite VFS whose main database file can, on request, write behind: a large import's
// commit encrypts pages on the store's writer while a second thread copies them into the kernel's page
// cache, instead of the writer doing both in turn. See write_behind.c for the rules that keep it safe.
#ifndef HREADERD_WRITE_BEHIND_H
#define HREADERD_WRITE_BEHIND_H

/// The VFS's name, for sqlite3_open_v2. Every file opened through it behaves as the default VFS's
/// until write-behind is turned on for it.
#define HREADERD_WRITE_BEHIND_VFS "hreaderd-write-behind"

/// The sqlite3_file_control opcode that turns write-behind on (argument: int* > 0, the page size the
/// connection writes) or off (int* == 0) for a connection's main database file. Off waits for every
/// write asked for, stops the thread and answers the first error a write met, if any (SQLITE_OK else).
/// On answers SQLITE_BUSY when another file of the process writes behind already.
#define HREADERD_FCNTL_WRITE_BEHIND 0x48524401

/// The sqlite3_file_control opcode that answers (argument: sqlite3_int64*) how many pages of the main
/// database file have been written behind since it was opened: for tests.
#define HREADERD_FCNTL_PAGES_BEHIND 0x48524402

/// Registers the VFS (not as the default); safe to call more than once. SQLITE_OK or an SQLite error code.
int hreaderd_write_behind_register(void);

#endif
