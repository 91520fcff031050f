import Foundation

/// The bytes of a file, or empty when it does not exist.
public func fileBytes(_ path: String) -> [UInt8] {
    (try? Data(contentsOf: URL(fileURLWithPath: path))).map(Array.init) ?? []
}

public func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
    let n = Array(needle.utf8)
    guard !n.isEmpty, haystack.count >= n.count else { return false }
    let first = n[0]
    var i = 0
    while i <= haystack.count - n.count {
        if haystack[i] == first && Array(haystack[i..<i + n.count]) == n { return true }
        i += 1
    }
    return false
}

/// Runs a program, returns its exit status, stdout and stderr.
@discardableResult
public func run(_ executable: String, _ arguments: [String], stdin: String? = nil,
                environment: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    // Start from this environment less anything that would point the program at a real store.
    var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HREADERD_") && $0.key != "CREDENTIALS_DIRECTORY" && $0.key != "STATE_DIRECTORY" }
    env.merge(environment) { _, new in new }
    process.environment = env
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}

/// The directory holding the built products (the test bundle sits beside the executables).
public var productsDirectory: String {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return (exe as NSString).deletingLastPathComponent
}

public func which(_ tool: String) -> String? {
    for dir in ["/usr/bin", "/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: dir + "/" + tool) {
        return dir + "/" + tool
    }
    return nil
}
