import Foundation

/// A failure a test reports by throwing.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A file in a fresh temporary directory, removed when the test's `body` returns.
public func withTemporaryFile<T>(_ contents: [UInt8], _ body: (String) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hreaderd-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("record.json")
    try Data(contents).write(to: file)
    return try body(file.path)
}

public func withTemporaryFile<T>(_ contents: String, _ body: (String) throws -> T) throws -> T {
    try withTemporaryFile(Array(contents.utf8), body)
}
