import Foundation

/// A fresh directory under /tmp, removed when the value is released.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(_ prefix: String = "hreaderd-test") {
        let template = NSTemporaryDirectory() + "\(prefix)-XXXXXX"
        var bytes = Array(template.utf8CString)
        let created = bytes.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = created.map { String(cString: $0) } ?? template
    }

    public func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
