import HealthRecord
import Store
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The process's standard streams and small files, on file descriptors: what the CLI needs of
/// Foundation's FileHandle, without Foundation.
enum StandardStreams {
    /// Writes every byte (through short writes and interruptions); a closed pipe ends it quietly.
    static func write(_ bytes: [UInt8], to fd: Int32) {
        try? FileSystem.writeAll(fd, bytes, path: fd == STDOUT_FILENO ? "stdout" : "stderr")
    }

    static func out(_ bytes: [UInt8]) { write(bytes, to: STDOUT_FILENO) }
    static func err(_ bytes: [UInt8]) { write(bytes, to: STDERR_FILENO) }

    enum ReadFailure: Error {
        case missing
        case denied
        case failed(String)
    }

    /// At most `limit` bytes from the start of the file at `path` (a probe of a file of any size; a whole
    /// small file is `FileSystem.readFile`).
    static func read(_ path: String, upTo limit: Int) throws(ReadFailure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            switch errno {
            case ENOENT: throw .missing
            case EACCES: throw .denied
            default: throw .failed(String(cString: strerror(errno)))
            }
        }
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: min(max(limit, 1), 64 * 1024))
        while out.count < limit {
            let n = Glibc.read(fd, &buffer, min(buffer.count, limit - out.count))
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .failed(String(cString: strerror(errno))) }
            if n == 0 { break }
            out += buffer[0..<n]
        }
        return out
    }

    /// A path with `.` and `..` resolved lexically (`NSString.standardizingPath` for the paths the CLI builds).
    static func standardized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." { parts.removeLast(); continue }
            parts.append(part)
        }
        return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
