import Logging
import NIOCore

/// One log line per answered request: method, path, status, body bytes, duration.
///
/// Deliberately absent: the query string (it may carry keys or tokens), bodies, and every
/// header (Authorization and Cookie above all). The path is logged as sent, percent-encoded,
/// cut to a bounded length, with anything unprintable replaced.
///
/// With an `output`, the message is written as bytes straight into it; without, it goes through
/// `logger` with its fields as metadata (for handlers that store fields apart). The message is the
/// same either way (`GET /timeline.json 200 13699B 0.3ms`).
struct AccessLog: Sendable {
    let logger: Logger
    let level: Logger.Level
    var output: (any AccessLogOutput)? = nil

    static let maxPathLength = 256

    /// Whether lines at this level reach the log at all.
    var isEnabled: Bool {
        self.logger.logLevel <= self.level
    }

    func record(method: HTTPMethod?, path: String?, status: HTTPResponseStatus, bytes: Int, since start: NIODeadline) {
        guard self.isEnabled else { return }
        let micros = (NIODeadline.now() - start).nanoseconds / 1000
        if let output = self.output {
            output.writeLine(level: self.level) { line in
                Self.appendMessage(method: method, path: path, status: status, bytes: bytes, micros: micros, to: &line)
            }
            return
        }
        var message: [UInt8] = []
        message.reserveCapacity(64)
        Self.appendMessage(method: method, path: path, status: status, bytes: bytes, micros: micros, to: &message)
        let methodText = method?.rawValue ?? "-"
        let pathText = path.map(Self.printable) ?? "-"
        self.logger.log(
            level: self.level,
            "\(String(decoding: message, as: UTF8.self))",
            metadata: [
                "http.method": .string(methodText),
                "http.path": .string(pathText),
                "http.status": .string(String(status.code)),
                "http.bytes": .stringConvertible(bytes),
                "http.duration_us": .stringConvertible(micros),
            ],
            // Given, not derived from #fileID on every request.
            source: "HTTPKit"
        )
    }

    /// `METHOD PATH STATUS BYTESB MILLIS.Tms`, the tenths of a millisecond truncated.
    static func appendMessage(method: HTTPMethod?, path: String?, status: HTTPResponseStatus, bytes: Int, micros: Int64,
                              to line: inout [UInt8]) {
        if let method { Self.append(method.rawValue, to: &line) } else { line.append(UInt8(ascii: "-")) }
        line.append(UInt8(ascii: " "))
        if let path {
            Self.append(Self.isPrintable(path) ? path : Self.printable(path), to: &line)
        } else {
            line.append(UInt8(ascii: "-"))
        }
        line.append(UInt8(ascii: " "))
        Self.appendDecimal(Int64(status.code), to: &line)
        line.append(UInt8(ascii: " "))
        Self.appendDecimal(Int64(bytes), to: &line)
        line.append(UInt8(ascii: "B"))
        line.append(UInt8(ascii: " "))
        Self.appendDecimal(micros / 1000, to: &line)
        line.append(UInt8(ascii: "."))
        Self.appendDecimal(micros % 1000 / 100, to: &line)
        line.append(UInt8(ascii: "m"))
        line.append(UInt8(ascii: "s"))
    }

    /// `value` in decimal, as `String(value)` writes it.
    static func appendDecimal(_ value: Int64, to line: inout [UInt8]) {
        if value < 0 {
            line.append(UInt8(ascii: "-"))
            // The magnitude as unsigned: Int64.min has no positive counterpart.
            Self.appendUnsigned(value.magnitude, to: &line)
        } else {
            Self.appendUnsigned(UInt64(value), to: &line)
        }
    }

    private static func appendUnsigned(_ value: UInt64, to line: inout [UInt8]) {
        // The digits last to first into a buffer on the stack (UInt64.max has 20), then appended at once: an
        // append a digit cost the access log's line about two fifths of its instructions.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            line.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// A string's bytes as stored, appended in one copy.
    private static func append(_ text: String, to line: inout [UInt8]) {
        var text = text
        text.withUTF8 { line.append(contentsOf: $0) }
    }

    private static func isPrintable(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { bytes in
            bytes.count <= maxPathLength && bytes.allSatisfy { $0 >= 0x21 && $0 < 0x7F }
        }
    }

    static func printable(_ path: String) -> String {
        if Self.isPrintable(path) { return path }
        var out = String()
        for scalar in path.unicodeScalars.prefix(maxPathLength) {
            out.unicodeScalars.append(scalar.value >= 0x21 && scalar.value < 0x7F ? scalar : "?")
        }
        if path.unicodeScalars.count > maxPathLength { out += "…" }
        return out
    }
}
