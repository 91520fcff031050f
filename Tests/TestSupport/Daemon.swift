import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The real `hreaderd serve` process in a temporary state directory on a free loopback port. Always
/// stopped when the value goes away.
public final class Daemon: @unchecked Sendable {
    public let state: String
    public let process = Process()
    public private(set) var port = 0
    private let stderrPipe = Pipe()
    private var log = ""

    public var client: HTTPTestClient { HTTPTestClient(port: port) }

    /// Starts `hreaderd serve --listen 127.0.0.1:0 …` and waits until it says where it listens.
    public init(state: String, arguments: [String] = [], environment: [String: String] = [:]) throws {
        self.state = state
        process.executableURL = URL(fileURLWithPath: productsDirectory + "/hreaderd")
        process.arguments = ["serve", "--state-dir", state, "--listen", "127.0.0.1:0"] + arguments
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HREADERD_") && $0.key != "CREDENTIALS_DIRECTORY" }
        env["TZ"] = env["TZ"] ?? "UTC"
        env.merge(environment) { _, new in new }
        process.environment = env
        process.standardError = stderrPipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        let reader = stderrPipe.fileHandleForReading
        while port == 0 {
            guard Date() < deadline, process.isRunning else {
                stop()
                throw HTTPTestClient.Failure(description: "hreaderd did not start: \(log)")
            }
            let chunk = reader.availableData
            if chunk.isEmpty { usleep(10_000); continue }
            log += String(decoding: chunk, as: UTF8.self)
            if let range = log.range(of: #"listening on 127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                port = Int(log[range].split(separator: ":").last ?? "") ?? 0
            }
        }
        // Keep draining stderr so the daemon never blocks on a full pipe.
        reader.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard !data.isEmpty else { return }
            self?.appendLog(String(decoding: data, as: UTF8.self))
        }
    }

    private let logLock = NSLock()
    private func appendLog(_ text: String) { logLock.lock(); log += text; logLock.unlock() }
    public var output: String { logLock.lock(); defer { logLock.unlock() }; return log }

    /// SIGTERM and wait; returns the exit status.
    @discardableResult
    public func stop() -> Int32 {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(15)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        stderrPipe.fileHandleForReading.readabilityHandler = nil
        return process.terminationStatus
    }

    deinit { stop() }
}
