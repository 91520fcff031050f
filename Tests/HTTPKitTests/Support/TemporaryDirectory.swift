import Foundation

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        var template = Array((base + "/httpkit-tests-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        self.path = String(cString: created)
    }

    func file(_ relative: String, _ contents: String) throws {
        try self.file(relative, bytes: Array(contents.utf8))
    }

    func file(_ relative: String, bytes: [UInt8]) throws {
        let url = URL(fileURLWithPath: self.path + "/" + relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    func directory(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: self.path + "/" + relative, withIntermediateDirectories: true)
    }

    func symlink(_ relative: String, to destination: String) throws {
        try FileManager.default.createSymbolicLink(atPath: self.path + "/" + relative, withDestinationPath: destination)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: self.path)
    }
}
