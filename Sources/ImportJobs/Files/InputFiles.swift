#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Records

/// Reads what `import-file` is given: a file, or a folder whose files make one input (a Bulk Data
/// export, Apple Health's `clinical-records/`). Sizes are checked before anything is read.
public enum InputFiles {
    public enum Failure: Error, Sendable, CustomStringConvertible {
        case cannotRead(path: String, reason: String)
        case tooLarge(path: String, bytes: Int, maxBytes: Int)
        case tooMany(path: String, maxFiles: Int)

        public var description: String {
            switch self {
            case let .cannotRead(path, reason): return "cannot read \(path): \(reason)"
            case let .tooLarge(path, bytes, maxBytes): return "\(path) is \(bytes) bytes, over the limit of \(maxBytes) bytes"
            case let .tooMany(path, maxFiles): return "\(path) holds more than \(maxFiles) files"
            }
        }
    }

    public static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    /// The regular files of a folder (not hidden, not in subfolders), sorted by name.
    public static func folder(_ path: String, limits: FHIRLimits = .standard) throws(Failure) -> [ImportInputFile] {
        guard let directory = opendir(path) else { throw .cannotRead(path: path, reason: String(cString: strerror(errno))) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            guard !name.hasPrefix(".") else { continue }
            var status = stat()
            guard stat(path + "/" + name, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { continue }
            names.append(name)
            guard names.count <= limits.maxFiles else { throw .tooMany(path: path, maxFiles: limits.maxFiles) }
        }
        var files: [ImportInputFile] = []
        var total = 0
        for name in names.sorted() {
            let bytes = try file(path + "/" + name, maxBytes: limits.maxFileBytes)
            total += bytes.count
            guard total <= limits.maxTotalBytes else { throw .tooLarge(path: path, bytes: total, maxBytes: limits.maxTotalBytes) }
            files.append(ImportInputFile(name: name, bytes: bytes))
        }
        return files
    }

    /// A file's bytes, refused by its size before it is read when it is over `maxBytes`.
    public static func file(_ path: String, maxBytes: Int) throws(Failure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotRead(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .cannotRead(path: path, reason: String(cString: strerror(errno))) }
        if (status.st_mode & S_IFMT) == S_IFREG, Int(status.st_size) > maxBytes {
            throw .tooLarge(path: path, bytes: Int(status.st_size), maxBytes: maxBytes)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(max(status.st_size, 0)))
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .cannotRead(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
            guard bytes.count <= maxBytes else { throw .tooLarge(path: path, bytes: bytes.count, maxBytes: maxBytes) }
        }
        return bytes
    }
}
