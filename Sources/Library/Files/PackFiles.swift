import Glibc

/// The few POSIX calls the library's files need, each failing with a `LibraryError` that names the file.
/// Writes go through `write(2)` with the error kept, so that a full disk (or a file-size limit) is a
/// `diskFull`, never a short file taken for a whole one.
enum PackFiles {
    /// A whole small file, refused when it is larger than `limit` bytes.
    static func read(_ path: String, limit: Int) throws(LibraryError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw errno == ENOENT ? .fileMissing(path: path) : .system("open", path)
        }
        defer { close(fd) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .system("read", path)
            }
            if n == 0 { return result }
            result.append(contentsOf: buffer[0..<n])
            if result.count > limit { throw .fileTooLarge(path: path, limit: limit) }
        }
    }

    /// Writes all of `bytes` to `fd`, through short writes and interruptions.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(LibraryError) {
        var written = 0
        while written < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + written, bytes.count - written)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw .system("write", path, n < 0 ? errno : EIO) }
            written += n
        }
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(LibraryError) {
        let failure: LibraryError? = bytes.withUnsafeBytes { raw in
            do throws(LibraryError) { try writeAll(fd, raw, path: path) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Creates `path` (which must not exist), writes `bytes`, fsyncs and closes it.
    static func create(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o644) throws(LibraryError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .system("create", path) }
        do throws(LibraryError) {
            try writeAll(fd, bytes, path: path)
            guard fsync(fd) == 0 else { throw LibraryError.system("fsync", path) }
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
        guard close(fd) == 0 else { unlink(path); throw .system("close", path) }
    }

    /// fsync of a directory makes a rename or a new file in it durable.
    static func syncDirectory(_ directory: String) throws(LibraryError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .system("open", directory) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .system("fsync", directory) }
    }

    static func rename(_ from: String, to: String) throws(LibraryError) {
        guard Glibc.rename(from, to) == 0 else { throw .system("rename to", to) }
    }

    /// The size of a file, or nil when there is none.
    static func size(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// What identifies a file's current version without reading it: device, inode, size, change time.
    static func identity(_ path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                            changed: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))
    }

    /// Creates a directory (and missing parents), mode 0700 for those it creates.
    static func makeDirectory(_ path: String) throws(LibraryError) {
        var info = stat()
        if stat(path, &info) == 0 { return }
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            if stat(current, &info) == 0 { continue }
            guard mkdir(current, 0o700) == 0 || errno == EEXIST else { throw .system("create the folder", current) }
        }
    }

    /// The names in a directory (not `.` and `..`).
    static func names(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// A name no other process picks at the same time: pid and random bits.
    static func uniqueSuffix() -> String {
        var generator = SystemRandomNumberGenerator()
        return "\(getpid())-\(String(generator.next() as UInt32, radix: 16))"
    }
}

/// A file's identity as `stat` gives it: a changed one is a replaced (or rewritten) file.
struct FileIdentity: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var changed: Int64
}
