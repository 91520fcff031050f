#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file side of a Unix domain socket listener: making the path free, binding with a
/// restrictive mode, and removing the file again only if it is still ours.
enum UnixSocketFile {
    struct Identity: Equatable, Sendable {
        let device: UInt64
        let inode: UInt64
    }

    /// Makes `path` free for a new socket. A socket file nobody answers on (left by a crash) is
    /// removed; a live socket, or any other kind of file, is an error and stays untouched.
    static func prepare(path: String) throws(HTTPServerError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw .socketPathFailed(path: path, operation: "lstat", errno: errno)
        }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else { throw .socketPathNotASocket(path) }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { throw .socketPathFailed(path: path, operation: "socket", errno: errno) }
        defer { close(probe) }
        let connected = try withAddress(path) { address, length in connect(probe, address, length) }
        if connected == 0 { throw .socketPathInUse(path) }
        let code = errno
        guard code == ECONNREFUSED else { throw .socketPathFailed(path: path, operation: "connect", errno: code) }
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .socketPathFailed(path: path, operation: "unlink", errno: errno)
        }
    }

    /// A new socket bound to `path` with permissions `mode`, not yet listening.
    ///
    /// The mode is set before `listen(2)` (which NIO calls when it adopts the socket), so no
    /// client can connect while the file still has the umask's permissions.
    static func create(path: String, mode: UInt32) throws(HTTPServerError) -> (descriptor: CInt, identity: Identity) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .socketPathFailed(path: path, operation: "socket", errno: errno) }
        do throws(HTTPServerError) {
            let bound = try withAddress(path) { address, length in bind(fd, address, length) }
            guard bound == 0 else { throw .socketPathFailed(path: path, operation: "bind", errno: errno) }
            guard chmod(path, mode_t(mode)) == 0 else {
                let code = errno
                unlink(path)
                throw .socketPathFailed(path: path, operation: "chmod", errno: code)
            }
            guard let identity = identity(of: path) else {
                unlink(path)
                throw .socketPathFailed(path: path, operation: "stat", errno: errno)
            }
            return (fd, identity)
        } catch {
            close(fd)
            throw error
        }
    }

    static func identity(of path: String) -> Identity? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Removes the socket file, unless another process has since put its own there.
    static func remove(path: String, ifStill identity: Identity) {
        if self.identity(of: path) == identity {
            unlink(path)
        }
    }

    private static func withAddress<Result>(
        _ path: String,
        _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
    ) throws(HTTPServerError) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else { throw .socketPathTooLong(path) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
