/* Test shim for scripts/reliability.py: a read-only file system under a running daemon, which a tmpfs
 * cannot give (remounting it read-only is refused while the daemon holds files open for writing).
 * Preloaded into hreaderd (LD_PRELOAD): while the file $HREADERD_TEST_EROFS_FLAG exists, every write,
 * sync or truncate of a file under $HREADERD_TEST_EROFS_DIR fails with EROFS, as on a file system that
 * the kernel remounted read-only after an error. Reads are untouched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static int blocked(int fd) {
    const char *flag = getenv("HREADERD_TEST_EROFS_FLAG"), *dir = getenv("HREADERD_TEST_EROFS_DIR");
    struct stat st;
    char link[64], path[4096];
    if (!flag || !dir || stat(flag, &st) != 0) return 0;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    return strncmp(path, dir, strlen(dir)) == 0;
}

#define REAL(name) static __typeof__(name) *real; if (!real) real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)
#define GUARD(fd) if (blocked(fd)) { errno = EROFS; return -1; }

ssize_t write(int fd, const void *buf, size_t n) { REAL(write); GUARD(fd); return real(fd, buf, n); }
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) { REAL(pwrite); GUARD(fd); return real(fd, buf, n, off); }
ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off) { REAL(pwrite64); GUARD(fd); return real(fd, buf, n, off); }
int fsync(int fd) { REAL(fsync); GUARD(fd); return real(fd); }
int fdatasync(int fd) { REAL(fdatasync); GUARD(fd); return real(fd); }
int ftruncate(int fd, off_t len) { REAL(ftruncate); GUARD(fd); return real(fd, len); }
int ftruncate64(int fd, off_t len) { REAL(ftruncate64); GUARD(fd); return real(fd, len); }
