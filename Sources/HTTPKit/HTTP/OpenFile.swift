#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A regular file opened for reading, with the `fstat` facts taken from the open descriptor
/// (so that `ETag`, `Last-Modified` and `Content-Length` describe exactly the bytes sent).
///
/// The descriptor is closed when the object is released. Opening blocks briefly on the file
/// system: call it from a handler (which runs off the event loop), never from NIO code.
public final class OpenFile: Sendable {
    let descriptor: CInt
    public let size: Int
    /// Last modification, seconds since the epoch.
    public let modificationSeconds: Int
    let modificationNanoseconds: Int
    let inode: UInt64

    public enum OpenError: Error, Sendable, Equatable {
        case notFound
        case notARegularFile
        case permissionDenied
        case failed(errno: CInt)
    }

    /// Opens `path` read-only. The last component is not followed when it is a symlink, and a
    /// FIFO or device never blocks or streams: only regular files are accepted.
    public init(path: String) throws(OpenError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else {
            switch errno {
            case ENOENT, ENOTDIR: throw .notFound
            case ELOOP: throw .notARegularFile
            case EACCES, EPERM: throw .permissionDenied
            case let code: throw .failed(errno: code)
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw .failed(errno: code)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .notARegularFile
        }
        self.descriptor = fd
        self.size = Int(info.st_size)
        #if canImport(Darwin)
        self.modificationSeconds = Int(info.st_mtimespec.tv_sec)
        self.modificationNanoseconds = Int(info.st_mtimespec.tv_nsec)
        #else
        self.modificationSeconds = Int(info.st_mtim.tv_sec)
        self.modificationNanoseconds = Int(info.st_mtim.tv_nsec)
        #endif
        self.inode = UInt64(info.st_ino)
    }

    deinit {
        close(self.descriptor)
    }

    /// A strong validator from the file's identity, size and modification time, like nginx's.
    public var entityTag: String {
        let time = self.modificationSeconds &* 1_000_000_000 &+ self.modificationNanoseconds
        return "\"" + String(self.inode, radix: 16) + "-" + String(self.size, radix: 16) + "-"
            + String(UInt64(bitPattern: Int64(time)), radix: 16) + "\""
    }
}
