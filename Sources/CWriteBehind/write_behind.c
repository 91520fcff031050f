// Write-behind for the main database file of one large transaction at a time.
//
// Why: a large import's commit hands SQLite tens of thousands of pages, each encrypted by SQLCipher and
// then written with pwrite, whose copy into the page cache costs about half as much as the encryption.
// With write-behind on, the writer copies each encrypted page into a ring and goes on; a second thread
// writes the ring out, so encryption and the kernel's copy run on two cores at once.
//
// The rule that keeps it as safe as writing in place: every operation other than a write of the file
// that writes behind (a read, a sync, a lock or unlock, a truncate, the size, a file control, any
// operation on any other file of this VFS, opening or deleting a file; only questions that do not touch a
// file, such as its sector size, do not wait) first waits until every write asked for before it is done.
// The files therefore always hold a prefix of the operations SQLite asked for, in its order, so a process
// killed at any moment leaves what a kill a little earlier would have left: the journal is not truncated,
// and no lock is given up, before the pages it covers are written; a sync syncs them. Another process sees
// the file only through locks, which wait too.
//
// A write that fails drops the pages queued behind it (the file still holds a prefix), and write-behind
// stops for the rest of the transaction. Its error is kept until an operation on the same file whose
// answer SQLite acts on takes it: at the latest the sync of the commit (`withWriteBehind` needs
// `synchronous` on). A write or the sync answers it as it is, where SQLite expects a write's error (a
// spill's failure puts the pager in its error state; the commit's fails the commit). A read, truncate,
// size or lock answers it as SQLITE_IOERR_WRITE: SQLite undoes the whole transaction after an I/O error,
// where a "disk full" from a read could undo only a statement and leave the transaction to commit without
// the pages dropped. Operations that give something up (an unlock, a close, an unmap) always go on after
// waiting, whatever the writes met.
#include "write_behind.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sqlcipher/sqlite3.h>

// The ring's size: 4 MiB (1,024 pages of 4 KiB), a few milliseconds of a commit. The writer waits when it is full.
#define RING_BYTES (4 << 20)
// The most bytes the writing thread hands to one write, when pages follow each other in the file: the
// default VFS masks a write's length to 17 bits (0x20000 bytes would be written as none).
#define RUN_BYTES 0x1ffff

typedef struct WBFile {
    sqlite3_file base;
    sqlite3_file *real; // the default VFS's file, in the memory right after this struct
    int isMainDB;
    sqlite3_int64 pagesBehind; // under `lock`: pages of this file that went through a ring
} WBFile;

// The ring of pages waiting to be written, of the one file that writes behind. Guarded by `lock`.
typedef struct Ring {
    WBFile *file;
    int pageSize, slots;
    unsigned char *pages;
    sqlite3_int64 *offsets;
    int head, count;      // slots [head, head + count) hold pages not yet written (the first may be being written)
    int error;            // the error a write met, until an operation on the file takes it
    int failed;           // a write failed: the rest of the transaction writes in place
    int stop;
    int writerWaiting;    // the writing thread waits for work
    int othersWaiting;    // threads waiting for room or for the ring to empty
    pthread_t thread;
    pthread_cond_t work, done;
} Ring;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Ring *active; // written under `lock`; read without it only to skip waiting when there is no ring

static sqlite3_vfs *realVFS(sqlite3_vfs *vfs) { return (sqlite3_vfs *)vfs->pAppData; }

static void *writeOut(void *argument) {
    Ring *ring = argument;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (ring->count == 0 && !ring->stop) {
            ring->writerWaiting = 1;
            pthread_cond_wait(&ring->work, &lock);
            ring->writerWaiting = 0;
        }
        if (ring->count == 0) break;
        // A run of pages that follow each other in the file and in the ring goes out in one write.
        int first = ring->head, n = 1, most = RUN_BYTES / ring->pageSize;
        while (n < ring->count && n < most && first + n < ring->slots
               && ring->offsets[first + n] == ring->offsets[first] + (sqlite3_int64)n * ring->pageSize) n++;
        pthread_mutex_unlock(&lock);
        sqlite3_file *real = ring->file->real;
        int rc = real->pMethods->xWrite(real, ring->pages + (size_t)first * ring->pageSize, n * ring->pageSize,
                                        ring->offsets[first]);
        pthread_mutex_lock(&lock);
        ring->head = (ring->head + n) % ring->slots;
        ring->count -= n;
        if (rc != SQLITE_OK) {
            // What was asked for after the failed write is not written: the file keeps a prefix.
            if (ring->error == SQLITE_OK) ring->error = rc;
            ring->failed = 1;
            ring->head = (ring->head + ring->count) % ring->slots;
            ring->count = 0;
        }
        if (ring->othersWaiting) pthread_cond_broadcast(&ring->done);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

// What an operation answers of the error a write met (see the top of this file).
enum Answer { WAITS_ONLY, ANSWERS_ERROR, ANSWERS_IO_ERROR };

// Waits, with `lock` held, until every page of the ring is written; then, for an operation on the ring's
// own file that answers it, takes the error a write met, if any.
static int waitEmptyLocked(Ring *ring, enum Answer answer) {
    ring->othersWaiting++;
    while (ring->count > 0) pthread_cond_wait(&ring->done, &lock);
    ring->othersWaiting--;
    // `stopRing` frees the ring once no one waits on it any more.
    if (ring->stop && ring->othersWaiting == 0) pthread_cond_broadcast(&ring->done);
    if (answer == WAITS_ONLY || ring->error == SQLITE_OK) return SQLITE_OK;
    int rc = answer == ANSWERS_IO_ERROR ? SQLITE_IOERR_WRITE : ring->error;
    ring->error = SQLITE_OK;
    return rc;
}

// What every operation but a write behind does first; `file`: the file it is on (NULL: the VFS's). Only an
// operation on the ring's own file answers a write's error.
static int waitForWrites(sqlite3_file *file, enum Answer answer) {
    if (__atomic_load_n(&active, __ATOMIC_ACQUIRE) == NULL) return SQLITE_OK;
    pthread_mutex_lock(&lock);
    Ring *ring = active;
    int rc = ring ? waitEmptyLocked(ring, file && ring->file == (WBFile *)file ? answer : WAITS_ONLY) : SQLITE_OK;
    pthread_mutex_unlock(&lock);
    return rc;
}

static void freeRing(Ring *ring) {
    free(ring->pages);
    free(ring->offsets);
    pthread_cond_destroy(&ring->work);
    pthread_cond_destroy(&ring->done);
    free(ring);
}

// Under `lock` throughout: one ring in the process at a time. Its thread starts on the lock, released here.
static int startRing(WBFile *file, int pageSize) {
    if (!file->isMainDB || pageSize < 512 || pageSize > 65536) return SQLITE_MISUSE;
    pthread_mutex_lock(&lock);
    if (active) { pthread_mutex_unlock(&lock); return SQLITE_BUSY; }
    Ring *ring = calloc(1, sizeof(Ring));
    if (!ring) { pthread_mutex_unlock(&lock); return SQLITE_NOMEM; }
    if (pthread_cond_init(&ring->work, NULL) != 0) { free(ring); pthread_mutex_unlock(&lock); return SQLITE_NOMEM; }
    if (pthread_cond_init(&ring->done, NULL) != 0) {
        pthread_cond_destroy(&ring->work);
        free(ring);
        pthread_mutex_unlock(&lock);
        return SQLITE_NOMEM;
    }
    ring->file = file;
    ring->pageSize = pageSize;
    ring->slots = RING_BYTES / pageSize;
    ring->pages = malloc((size_t)ring->slots * pageSize);
    ring->offsets = malloc((size_t)ring->slots * sizeof(sqlite3_int64));
    if (!ring->pages || !ring->offsets || pthread_create(&ring->thread, NULL, writeOut, ring) != 0) {
        freeRing(ring);
        pthread_mutex_unlock(&lock);
        return SQLITE_NOMEM;
    }
    __atomic_store_n(&active, ring, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
    return SQLITE_OK;
}

// Waits for every write, stops the thread and frees the ring once no other thread waits on it; answers
// the error a write met that no operation took.
static int stopRing(WBFile *file) {
    pthread_mutex_lock(&lock);
    Ring *ring = active;
    if (!ring || ring->file != file) { pthread_mutex_unlock(&lock); return SQLITE_OK; }
    int rc = waitEmptyLocked(ring, ANSWERS_ERROR);
    ring->stop = 1;
    pthread_cond_signal(&ring->work);
    __atomic_store_n(&active, NULL, __ATOMIC_RELEASE);
    while (ring->othersWaiting > 0) pthread_cond_wait(&ring->done, &lock);
    pthread_mutex_unlock(&lock);
    pthread_join(ring->thread, NULL);
    freeRing(ring);
    return rc;
}

// MARK: The file's methods: a write may go behind; everything else waits, then is the real file's.

#define REAL(f) (((WBFile *)(f))->real)
// An operation whose answer SQLite acts on: it answers a write's error (`answer`) instead of going on.
#define ANSWERING(answer, f, call) do { int rc_ = waitForWrites((f), (answer)); if (rc_ != SQLITE_OK) return rc_; return (call); } while (0)
// Any other: it waits, then always goes on (an unlock or a close skipped would hold the file).
#define AFTER_WRITES(f, call) do { waitForWrites((f), WAITS_ONLY); return (call); } while (0)

static int wbClose(sqlite3_file *f) {
    int rc = stopRing((WBFile *)f);
    waitForWrites(f, WAITS_ONLY);
    int closed = REAL(f)->pMethods ? REAL(f)->pMethods->xClose(REAL(f)) : SQLITE_OK;
    return rc != SQLITE_OK ? rc : closed;
}

static int wbRead(sqlite3_file *f, void *buffer, int amount, sqlite3_int64 offset) {
    ANSWERING(ANSWERS_IO_ERROR, f, REAL(f)->pMethods->xRead(REAL(f), buffer, amount, offset));
}

static int wbWrite(sqlite3_file *f, const void *buffer, int amount, sqlite3_int64 offset) {
    if (__atomic_load_n(&active, __ATOMIC_ACQUIRE) != NULL) {
        pthread_mutex_lock(&lock);
        Ring *ring = active;
        int rc = SQLITE_OK;
        if (ring && ring->file == (WBFile *)f) {
            if (!ring->failed && amount == ring->pageSize) {
                while (ring->count == ring->slots && !ring->failed) {
                    ring->othersWaiting++;
                    pthread_cond_wait(&ring->done, &lock);
                    ring->othersWaiting--;
                }
                if (!ring->failed) {
                    int slot = (ring->head + ring->count) % ring->slots;
                    memcpy(ring->pages + (size_t)slot * ring->pageSize, buffer, amount);
                    ring->offsets[slot] = offset;
                    ring->count++;
                    ring->file->pagesBehind++;
                    if (ring->writerWaiting) pthread_cond_signal(&ring->work);
                    pthread_mutex_unlock(&lock);
                    return SQLITE_OK;
                }
            }
            rc = waitEmptyLocked(ring, ANSWERS_ERROR);
        } else if (ring) {
            waitEmptyLocked(ring, WAITS_ONLY);
        }
        pthread_mutex_unlock(&lock);
        if (rc != SQLITE_OK) return rc;
    }
    return REAL(f)->pMethods->xWrite(REAL(f), buffer, amount, offset);
}

static int wbTruncate(sqlite3_file *f, sqlite3_int64 size) {
    ANSWERING(ANSWERS_IO_ERROR, f, REAL(f)->pMethods->xTruncate(REAL(f), size));
}
static int wbSync(sqlite3_file *f, int flags) { ANSWERING(ANSWERS_ERROR, f, REAL(f)->pMethods->xSync(REAL(f), flags)); }
static int wbFileSize(sqlite3_file *f, sqlite3_int64 *size) {
    ANSWERING(ANSWERS_IO_ERROR, f, REAL(f)->pMethods->xFileSize(REAL(f), size));
}
static int wbLock(sqlite3_file *f, int level) { ANSWERING(ANSWERS_IO_ERROR, f, REAL(f)->pMethods->xLock(REAL(f), level)); }
static int wbUnlock(sqlite3_file *f, int level) { AFTER_WRITES(f, REAL(f)->pMethods->xUnlock(REAL(f), level)); }
static int wbCheckReservedLock(sqlite3_file *f, int *out) {
    ANSWERING(ANSWERS_IO_ERROR, f, REAL(f)->pMethods->xCheckReservedLock(REAL(f), out));
}

static int wbFileControl(sqlite3_file *f, int op, void *argument) {
    if (op == HREADERD_FCNTL_WRITE_BEHIND) {
        int pageSize = *(int *)argument;
        return pageSize > 0 ? startRing((WBFile *)f, pageSize) : stopRing((WBFile *)f);
    }
    if (op == HREADERD_FCNTL_PAGES_BEHIND) {
        pthread_mutex_lock(&lock);
        *(sqlite3_int64 *)argument = ((WBFile *)f)->pagesBehind;
        pthread_mutex_unlock(&lock);
        return SQLITE_OK;
    }
    // SQLite ignores the answer of some (hints): a write's error waits for the sync that follows.
    AFTER_WRITES(f, REAL(f)->pMethods->xFileControl(REAL(f), op, argument));
}

static int wbSectorSize(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int wbDeviceCharacteristics(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }

static int wbShmMap(sqlite3_file *f, int region, int size, int extend, void volatile **out) {
    AFTER_WRITES(f, REAL(f)->pMethods->xShmMap(REAL(f), region, size, extend, out));
}
static int wbShmLock(sqlite3_file *f, int offset, int n, int flags) { AFTER_WRITES(f, REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags)); }
static void wbShmBarrier(sqlite3_file *f) { waitForWrites(f, WAITS_ONLY); REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int wbShmUnmap(sqlite3_file *f, int deleteFlag) { AFTER_WRITES(f, REAL(f)->pMethods->xShmUnmap(REAL(f), deleteFlag)); }
static int wbFetch(sqlite3_file *f, sqlite3_int64 offset, int amount, void **out) {
    AFTER_WRITES(f, REAL(f)->pMethods->xFetch(REAL(f), offset, amount, out));
}
static int wbUnfetch(sqlite3_file *f, sqlite3_int64 offset, void *page) { AFTER_WRITES(f, REAL(f)->pMethods->xUnfetch(REAL(f), offset, page)); }

// One table per version of the real file's methods, so SQLite never calls a method the real file lacks.
#define METHODS(version) { version, wbClose, wbRead, wbWrite, wbTruncate, wbSync, wbFileSize, wbLock, wbUnlock, \
    wbCheckReservedLock, wbFileControl, wbSectorSize, wbDeviceCharacteristics, wbShmMap, wbShmLock, wbShmBarrier, \
    wbShmUnmap, wbFetch, wbUnfetch }
static const sqlite3_io_methods methods[3] = { METHODS(1), METHODS(2), METHODS(3) };

// MARK: The VFS: the default one's, with the file wrapped.

static int wbOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *outFlags) {
    waitForWrites(NULL, WAITS_ONLY);
    WBFile *file = (WBFile *)f;
    memset(file, 0, sizeof(WBFile));
    file->real = (sqlite3_file *)&file[1];
    file->isMainDB = (flags & SQLITE_OPEN_MAIN_DB) != 0;
    int rc = realVFS(vfs)->xOpen(realVFS(vfs), name, file->real, flags, outFlags);
    const sqlite3_io_methods *real = file->real->pMethods;
    if (real) {
        int version = real->iVersion < 1 ? 1 : real->iVersion > 3 ? 3 : real->iVersion;
        f->pMethods = &methods[version - 1];
    } else {
        f->pMethods = NULL;
    }
    return rc;
}

static int wbDelete(sqlite3_vfs *vfs, const char *name, int syncDir) {
    AFTER_WRITES(NULL, realVFS(vfs)->xDelete(realVFS(vfs), name, syncDir));
}
static int wbAccess(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
    AFTER_WRITES(NULL, realVFS(vfs)->xAccess(realVFS(vfs), name, flags, out));
}
static int wbFullPathname(sqlite3_vfs *vfs, const char *name, int n, char *out) {
    return realVFS(vfs)->xFullPathname(realVFS(vfs), name, n, out);
}
static void *wbDlOpen(sqlite3_vfs *vfs, const char *name) { return realVFS(vfs)->xDlOpen(realVFS(vfs), name); }
static void wbDlError(sqlite3_vfs *vfs, int n, char *out) { realVFS(vfs)->xDlError(realVFS(vfs), n, out); }
static void (*wbDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    return realVFS(vfs)->xDlSym(realVFS(vfs), handle, symbol);
}
static void wbDlClose(sqlite3_vfs *vfs, void *handle) { realVFS(vfs)->xDlClose(realVFS(vfs), handle); }
static int wbRandomness(sqlite3_vfs *vfs, int n, char *out) { return realVFS(vfs)->xRandomness(realVFS(vfs), n, out); }
static int wbSleep(sqlite3_vfs *vfs, int microseconds) { return realVFS(vfs)->xSleep(realVFS(vfs), microseconds); }
static int wbCurrentTime(sqlite3_vfs *vfs, double *out) { return realVFS(vfs)->xCurrentTime(realVFS(vfs), out); }
static int wbGetLastError(sqlite3_vfs *vfs, int n, char *out) {
    return realVFS(vfs)->xGetLastError ? realVFS(vfs)->xGetLastError(realVFS(vfs), n, out) : 0;
}
static int wbCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
    return realVFS(vfs)->xCurrentTimeInt64(realVFS(vfs), out);
}

static sqlite3_vfs vfs;
static int registered = SQLITE_ERROR;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void registerOnce(void) {
    sqlite3_vfs *real = sqlite3_vfs_find(NULL);
    if (!real) return;
    vfs.iVersion = real->iVersion >= 2 ? 2 : 1;
    vfs.szOsFile = (int)sizeof(WBFile) + real->szOsFile;
    vfs.mxPathname = real->mxPathname;
    vfs.zName = HREADERD_WRITE_BEHIND_VFS;
    vfs.pAppData = real;
    vfs.xOpen = wbOpen;
    vfs.xDelete = wbDelete;
    vfs.xAccess = wbAccess;
    vfs.xFullPathname = wbFullPathname;
    vfs.xDlOpen = wbDlOpen;
    vfs.xDlError = wbDlError;
    vfs.xDlSym = wbDlSym;
    vfs.xDlClose = wbDlClose;
    vfs.xRandomness = wbRandomness;
    vfs.xSleep = wbSleep;
    vfs.xCurrentTime = wbCurrentTime;
    vfs.xGetLastError = wbGetLastError;
    vfs.xCurrentTimeInt64 = real->iVersion >= 2 ? wbCurrentTimeInt64 : NULL;
    registered = sqlite3_vfs_register(&vfs, 0);
}

int hreaderd_write_behind_register(void) {
    pthread_once(&once, registerOnce);
    return registered;
}
