import Logging

/// Where access lines go when the program writes them itself instead of through its `Logger`
/// (`HTTPServer.Configuration.accessLogOutput`): a line a request is the one log event every request
/// pays for, and swift-log's path costs a `Logger.Message` string, a metadata dictionary and the
/// handler's own formatting each time. The output frames the line as its log handler frames every
/// other line (prefix, newline), so that the log reads the same either way.
public protocol AccessLogOutput: Sendable {
    /// Writes one line at `level`. `appendMessage` appends the message: UTF-8, printable, no newline.
    func writeLine(level: Logger.Level, appendMessage: (inout [UInt8]) -> Void)
}
