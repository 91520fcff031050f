#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens files named by decoded URL path segments, only inside a root directory.
///
/// Every segment must be a plain name: no `/`, `\`, NUL, no `.` or `..`, and no leading dot
/// unless hidden files are served. Then two ways in:
///
/// - the usual one walks the names from an open descriptor of the root with `openat(2)` and
///   `O_NOFOLLOW`: one system call per segment, no symlink followed, and no window in which a
///   renamed directory could lead elsewhere;
/// - when the walk meets a symlink, the path is resolved with `realpath(3)` and served only if
///   the real path still lies under the root's real path: symlinks inside the root work,
///   symlinks that lead out do not.
struct ContainedPath: Sendable {
    /// The root, as a real path without a trailing slash.
    let root: String
    private let rootDirectory: DirectoryDescriptor
    let allowsHiddenNames: Bool

    init(root: String, allowsHiddenNames: Bool) throws(FileServer.RootError) {
        guard let real = Self.realPath(root) else { throw .notFound(root) }
        let fd = openat(AT_FDCWD, real, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw errno == ENOTDIR ? .notADirectory(root) : .notFound(root) }
        self.root = real == "/" ? "" : real
        self.rootDirectory = DirectoryDescriptor(fd)
        self.allowsHiddenNames = allowsHiddenNames
    }

    func isAcceptableName(_ name: String) -> Bool {
        guard !name.isEmpty, name != ".", name != ".." else { return false }
        if !self.allowsHiddenNames && name.hasPrefix(".") { return false }
        return !name.utf8.contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") || $0 == 0 }
    }

    /// Opens what `names` name under the root: a regular file or a directory.
    func open(_ names: some Collection<String>) throws(OpenFile.OpenError) -> OpenFile.Entry {
        guard names.allSatisfy(self.isAcceptableName) else { throw .notFound }
        if let entry = try self.walk(names) {
            return entry
        }
        // A symlink on the way: follow it only if it stays inside.
        let joined = ([self.root] + names).joined(separator: "/")
        guard let real = self.contained(joined) else { throw .notFound }
        return try OpenFile.open(real, followingLastSymlink: false)
    }

    /// The entry, or `nil` when a symlink (or a file where a directory should be) is in the way.
    private func walk(_ names: some Collection<String>) throws(OpenFile.OpenError) -> OpenFile.Entry? {
        var directory = self.rootDirectory.descriptor
        var owned: CInt?
        defer {
            if let owned { close(owned) }
        }
        guard !names.isEmpty else { return .directory }
        for (index, name) in names.enumerated() {
            let isLast = index == names.count - 1
            let flags = isLast ? O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW : O_RDONLY | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW
            let fd = openat(directory, name, flags)
            guard fd >= 0 else {
                switch errno {
                case ELOOP, ENOTDIR: return nil
                case ENOENT: throw .notFound
                case EACCES, EPERM: throw .permissionDenied
                case let code: throw .failed(errno: code)
                }
            }
            if isLast {
                return try OpenFile.entry(adopting: fd)
            }
            if let previous = owned { close(previous) }
            owned = fd
            directory = fd
        }
        return nil  // not reached: the last name returns above
    }

    /// The real path of `path` (absolute), when it exists and is inside the root.
    func contained(_ path: String) -> String? {
        guard let real = Self.realPath(path) else { return nil }
        guard real == self.root || real.hasPrefix(self.root + "/") else { return nil }
        return real
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// An open directory, closed with its last user.
private final class DirectoryDescriptor: Sendable {
    let descriptor: CInt

    init(_ descriptor: CInt) {
        self.descriptor = descriptor
    }

    deinit {
        close(self.descriptor)
    }
}
