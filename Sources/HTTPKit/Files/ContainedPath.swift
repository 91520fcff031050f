#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns decoded URL path segments into a real file system path that is inside a root
/// directory, or into nothing.
///
/// Two layers: each segment must be a plain name (no `/`, `\`, NUL, no `.` or `..`, and no
/// leading dot unless hidden files are served), and the resolved real path (every symlink
/// followed) must still lie under the root's real path, which stops symlinks that lead out.
struct ContainedPath {
    /// The root, as a real path without a trailing slash.
    let root: String
    let allowsHiddenNames: Bool

    init(root: String, allowsHiddenNames: Bool) throws(FileServer.RootError) {
        guard let real = Self.realPath(root) else { throw .notFound(root) }
        var info = stat()
        guard stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { throw .notADirectory(root) }
        self.root = real == "/" ? "" : real
        self.allowsHiddenNames = allowsHiddenNames
    }

    func isAcceptableName(_ name: String) -> Bool {
        guard !name.isEmpty, name != ".", name != ".." else { return false }
        if !self.allowsHiddenNames && name.hasPrefix(".") { return false }
        return !name.utf8.contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") || $0 == 0 }
    }

    /// The real path of `names` under the root, when every name is acceptable, the path exists,
    /// and it does not lead outside the root.
    func resolve(_ names: some Collection<String>) -> String? {
        guard names.allSatisfy(self.isAcceptableName) else { return nil }
        let joined = ([self.root] + names).joined(separator: "/")
        return self.contained(joined)
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
