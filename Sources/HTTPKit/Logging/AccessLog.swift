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
        let methodText = method?.rawValue ?? "-"
        let pathText = path.map(Self.printable) ?? "-"
        let code = String(status.code)
        var message = methodText
        message += " "; message += pathText; message += " "; message += code; message += " "; message += String(bytes)
        message += "B "; message += String(micros / 1000); message += "."; message += String(micros % 1000 / 100); message += "ms"
        self.logger.log(
            level: self.level,
            "\(message)",
            metadata: [
                "http.method": .string(methodText),
                "http.path": .string(pathText),
                "http.status": .string(code),
                "http.bytes": .stringConvertible(bytes),
                "http.duration_us": .stringConvertible(micros),
            ],
            // Given, not derived from #fileID on every request.
            source: "HTTPKit"
        )
    }

    static func printable(_ path: String) -> String {
        if path.utf8.count <= maxPathLength, path.utf8.allSatisfy({ $0 >= 0x21 && $0 < 0x7F }) { return path }
        var out = String()
        for scalar in path.unicodeScalars.prefix(maxPathLength) {
            out.unicodeScalars.append(scalar.value >= 0x21 && scalar.value < 0x7F ? scalar : "?")
        }
        if path.unicodeScalars.count > maxPathLength { out += "…" }
        return out
    }
}
