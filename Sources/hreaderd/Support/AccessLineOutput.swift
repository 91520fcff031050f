import HTTPKit
import Logging

/// The daemon's access lines, written as bytes into the log's queue (`LogLineWriter`) and framed as
/// `LineLogHandler` frames every line: the same line, without a `Logger` event, a metadata dictionary or a
/// `String` for each request.
struct AccessLineOutput: AccessLogOutput {
    let toJournal: Bool
    /// Where the line's bytes go: the log's queue in the daemon; tests collect them.
    var write: @Sendable ((inout [UInt8]) -> Void) -> Void = { LogLineWriter.shared.write(appending: $0) }

    func writeLine(level: Logger.Level, appendMessage: (inout [UInt8]) -> Void) {
        let toJournal = self.toJournal
        write { line in
            LineLogHandler.appendPrefix(level: level, toJournal: toJournal, to: &line)
            let start = line.count
            appendMessage(&line)
            // One event, one line, as LineLogHandler keeps it.
            if line[start...].contains(0x0A) { Self.escapeNewlines(in: &line, from: start) }
            line.append(0x0A)
        }
    }

    private static func escapeNewlines(in line: inout [UInt8], from start: Int) {
        let message = line[start...]
        var escaped: [UInt8] = []
        for byte in message {
            if byte == 0x0A { escaped.append(contentsOf: "\\n".utf8) } else { escaped.append(byte) }
        }
        line.replaceSubrange(start..., with: escaped)
    }
}
