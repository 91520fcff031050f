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
    ///
    /// Written into a buffer on the stack and appended in one copy: appended a piece at a time (fourteen appends,
    /// each checking the line's storage), the message cost the access line about 1,800 instructions (issue 41).
    static func appendMessage(method: HTTPMethod?, path: String?, status: HTTPResponseStatus, bytes: Int, micros: Int64,
                              to line: inout [UInt8]) {
        var methodText = method?.rawValue ?? "-"
        var pathText = path.map(Self.printable) ?? "-"
        methodText.withUTF8 { methodBytes in
            pathText.withUTF8 { pathBytes in
                // The two texts, five separators and units, and four numbers of at most 20 digits and a sign each.
                let capacity = methodBytes.count + pathBytes.count + 8 + 4 * 21
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
                    var at = Self.copy(methodBytes, to: buffer, at: 0)
                    buffer[at] = UInt8(ascii: " ")
                    at = Self.copy(pathBytes, to: buffer, at: at + 1)
                    buffer[at] = UInt8(ascii: " ")
                    at = Self.writeDecimal(Int64(status.code), to: buffer, at: at + 1)
                    buffer[at] = UInt8(ascii: " ")
                    at = Self.writeDecimal(Int64(bytes), to: buffer, at: at + 1)
                    buffer[at] = UInt8(ascii: "B")
                    buffer[at + 1] = UInt8(ascii: " ")
                    at = Self.writeDecimal(micros / 1000, to: buffer, at: at + 2)
                    buffer[at] = UInt8(ascii: ".")
                    at = Self.writeDecimal(micros % 1000 / 100, to: buffer, at: at + 1)
                    buffer[at] = UInt8(ascii: "m")
                    buffer[at + 1] = UInt8(ascii: "s")
                    line.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<(at + 2)]))
                }
            }
        }
    }

    /// `value` in decimal, as `String(value)` writes it, at `offset` (room for 21 bytes); returns where it ends.
    static func writeDecimal(_ value: Int64, to buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Int {
        var at = offset
        if value < 0 {
            buffer[at] = UInt8(ascii: "-")
            at += 1
        }
        // The magnitude as unsigned: Int64.min has no positive counterpart. Its digits counted first, then written
        // last to first.
        let magnitude = value.magnitude
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        rest = magnitude
        for index in stride(from: at + digits - 1, through: at, by: -1) {
            buffer[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        return at + digits
    }

    private static func copy(_ bytes: UnsafeBufferPointer<UInt8>, to buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Int {
        offset + UnsafeMutableBufferPointer(rebasing: buffer[offset..<(offset + bytes.count)]).initialize(fromContentsOf: bytes)
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
