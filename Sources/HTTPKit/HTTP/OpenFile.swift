#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore

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
    public convenience init(path: String) throws(OpenError) {
        let (fd, info) = try Self.openDescriptor(path, followingLastSymlink: false)
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .notARegularFile
        }
        self.init(descriptor: fd, info: info)
    }

    /// What a path names, for the file server: a regular file (open), or a directory (closed
    /// again). Anything else is `notARegularFile`.
    enum Entry {
        case file(OpenFile)
        case directory
    }

    /// Opens `path` and tells a file from a directory with one `open` and one `fstat`.
    static func open(_ path: String, followingLastSymlink: Bool) throws(OpenError) -> Entry {
        let (fd, info) = try openDescriptor(path, followingLastSymlink: followingLastSymlink)
        return try entry(adopting: fd, info: info)
    }

    /// Classifies an open descriptor, which is then owned by the result (or closed).
    static func entry(adopting fd: CInt) throws(OpenError) -> Entry {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw .failed(errno: code)
        }
        return try entry(adopting: fd, info: info)
    }

    private static func entry(adopting fd: CInt, info: stat) throws(OpenError) -> Entry {
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            return .file(OpenFile(descriptor: fd, info: info))
        case S_IFDIR:
            close(fd)
            return .directory
        default:
            close(fd)
            throw .notARegularFile
        }
    }

    private static func openDescriptor(_ path: String, followingLastSymlink: Bool) throws(OpenError) -> (CInt, stat) {
        // O_NONBLOCK: opening a FIFO must not wait for a writer.
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followingLastSymlink ? 0 : O_NOFOLLOW)
        let fd = systemOpen(path, flags)
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
        return (fd, info)
    }

    private init(descriptor: CInt, info: stat) {
        self.descriptor = descriptor
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

    /// Up to `count` bytes from `offset`: a blocking read, so never on an event loop. Fewer
    /// bytes (or none) when the file has shrunk since it was opened; `nil` on a read error.
    public func read(offset: Int, count: Int) -> ByteBuffer? {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        var total = 0
        while total < count {
            let result = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count - total) { pointer in
                pread(self.descriptor, pointer.baseAddress, count - total, off_t(offset + total))
            }
            if result < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if result == 0 { break }  // end of file
            total += result
        }
        return buffer
    }

    /// A strong validator from the file's identity, size and modification time, like nginx's.
    public var entityTag: String {
        let time = self.modificationSeconds &* 1_000_000_000 &+ self.modificationNanoseconds
        return "\"" + String(self.inode, radix: 16) + "-" + String(self.size, radix: 16) + "-"
            + String(UInt64(bitPattern: Int64(time)), radix: 16) + "\""
    }
}

/// `open(2)`, under a name that the type's own `open` does not shadow.
private func systemOpen(_ path: String, _ flags: CInt) -> CInt {
    open(path, flags)
}
