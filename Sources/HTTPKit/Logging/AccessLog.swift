import Logging
import NIOCore

/// One log line per answered request: method, path, status, body bytes, duration.
///
/// Deliberately absent: the query string (it may carry keys or tokens), bodies, and every
/// header (Authorization and Cookie above all). The path is logged as sent, percent-encoded,
/// cut to a bounded length, with anything unprintable replaced.
struct AccessLog: Sendable {
    let logger: Logger
    let level: Logger.Level

    static let maxPathLength = 256

    /// Whether lines at this level reach the log at all.
    var isEnabled: Bool {
        self.logger.logLevel <= self.level
    }

    func record(method: HTTPMethod?, path: String?, status: HTTPResponseStatus, bytes: Int, since start: NIODeadline) {
        guard self.isEnabled else { return }
        let micros = (NIODeadline.now() - start).nanoseconds / 1000
        let duration = "\(micros / 1000).\(String(micros % 1000 / 100))ms"
        let methodText = method?.rawValue ?? "-"
        let pathText = path.map(Self.printable) ?? "-"
        self.logger.log(
            level: self.level,
            "\(methodText) \(pathText) \(status.code) \(bytes)B \(duration)",
            metadata: [
                "http.method": "\(methodText)",
                "http.path": "\(pathText)",
                "http.status": "\(status.code)",
                "http.bytes": "\(bytes)",
                "http.duration_us": "\(micros)",
            ]
        )
    }

    static func printable(_ path: String) -> String {
        var out = String()
        for scalar in path.unicodeScalars.prefix(maxPathLength) {
            out.unicodeScalars.append(scalar.value >= 0x21 && scalar.value < 0x7F ? scalar : "?")
        }
        if path.unicodeScalars.count > maxPathLength { out += "…" }
        return out
    }
}
