import HealthRecord
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Small POSIX helpers for files whose loss or half-writing would lose the user's data.
public enum FileSystem {
    public struct Failure: Error, CustomStringConvertible {
        public let path: String
        public let operation: String
        public let errnoValue: Int32
        public var description: String { "\(operation) \(path): \(String(cString: strerror(errnoValue)))" }
    }

    /// Writes `bytes` to `path` so that a crash leaves either the old file or the new one, never a mix:
    /// temp file (mode `mode`), fsync, rename (or link, when `replace` is false), fsync of the directory.
    static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600, replace: Bool) throws(Failure) {
        let temporary = path + ".tmp-\(getpid())"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(path: temporary, operation: "create", errnoValue: errno) }
        do { try writeAll(fd, bytes, path: temporary) } catch {
            close(fd); unlink(temporary)
            throw error
        }
        // fchmod: the umask may have narrowed the mode already, but must never widen it.
        if fchmod(fd, mode) != 0 || fsync(fd) != 0 {
            let e = errno
            close(fd); unlink(temporary)
            throw Failure(path: temporary, operation: "fsync", errnoValue: e)
        }
        close(fd)
        if replace {
            guard rename(temporary, path) == 0 else {
                let e = errno
                unlink(temporary)
                throw Failure(path: path, operation: "rename to", errnoValue: e)
            }
        } else {
            // link() fails with EEXIST instead of replacing: an existing file is never overwritten.
            guard link(temporary, path) == 0 else {
                let e = errno
                unlink(temporary)
                throw Failure(path: path, operation: "create", errnoValue: e)
            }
            unlink(temporary)
        }
        try syncDirectory(containing: path)
    }

    /// Writes all of `bytes` to `fd`, through short writes and interruptions.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(Failure) {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0, errno == EINTR { continue }
            // A write of nothing would loop for ever: an error too.
            guard n > 0 else { throw Failure(path: path, operation: "write", errnoValue: n < 0 ? errno : EIO) }
            written += n
        }
    }

    /// fsync of the directory makes a rename or a new file durable.
    static func syncDirectory(containing path: String) throws(Failure) {
        let directory = parentDirectory(of: path)
        let dir = directory.isEmpty ? "." : directory
        let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(path: dir, operation: "open", errnoValue: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Failure(path: dir, operation: "fsync", errnoValue: errno) }
    }

    /// Reads a whole small file, refusing anything bigger than `limit` bytes.
    public static func readFile(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(path: path, operation: "open", errnoValue: errno) }
        defer { close(fd) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, operation: "read", errnoValue: errno)
            }
            if n == 0 { break }
            result.append(contentsOf: buffer[0..<n])
            if result.count > limit { throw Failure(path: path, operation: "read (file too large)", errnoValue: EFBIG) }
        }
        return result
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}
