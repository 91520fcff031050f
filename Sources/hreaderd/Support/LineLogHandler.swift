import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// One line per event on stderr. Under systemd, when stderr is the journal (`$JOURNAL_STREAM` names it),
/// each line starts with its syslog priority (`<6>`) and carries no timestamp: the journal adds its own.
/// On a terminal or in a file, lines start with an ISO 8601 time and the level.
struct LineLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    let toJournal: Bool

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let level = event.level
        let message = event.message
        var fields = metadata
        if let explicit = event.metadata { fields.merge(explicit) { _, new in new } }
        // The access log's message already says method, path, status, bytes and time.
        let extra = fields.filter { !$0.key.hasPrefix("http.") }.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let text = "\(message)" + (extra.isEmpty ? "" : " " + extra)
        // One event, one line: a newline inside a message must not forge a second entry.
        let singleLine = text.replacingOccurrences(of: "\n", with: "\\n")
        let output: String
        if toJournal {
            output = "<\(Self.priority(level))>\(singleLine)\n"
        } else {
            output = "\(Self.timestamp()) \(level) \(singleLine)\n"
        }
        FileHandle.standardError.write(Data(output.utf8))
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var time = now.tv_sec
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec, Int(now.tv_nsec / 1_000_000))
    }

    /// Whether stderr is the journal stream systemd connected (`$JOURNAL_STREAM` is "device:inode").
    static func stderrIsJournal(environment: [String: String]) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
