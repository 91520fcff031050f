import Foundation

/// A fresh directory under the system's temporary directory, removed when the value is released (or
/// earlier, by `remove()`).
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(_ prefix: String = "hreaderd-test") {
        let template = NSTemporaryDirectory() + "\(prefix)-XXXXXX"
        var bytes = Array(template.utf8CString)
        let created = bytes.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = created.map { String(cString: $0) } ?? template
    }

    /// The path of `name` inside the directory (nothing is written).
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `contents` to `relative`, creating the folders on its way.
    public func file(_ relative: String, _ contents: String) throws {
        try file(relative, bytes: Array(contents.utf8))
    }

    public func file(_ relative: String, bytes: [UInt8]) throws {
        let url = URL(fileURLWithPath: path + "/" + relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    public func directory(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: path + "/" + relative, withIntermediateDirectories: true)
    }

    public func symlink(_ relative: String, to destination: String) throws {
        try FileManager.default.createSymbolicLink(atPath: path + "/" + relative, withDestinationPath: destination)
    }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }

    deinit { remove() }
}
