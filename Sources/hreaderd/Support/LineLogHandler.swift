import FoundationEssentials
import Logging
import Synchronization
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

    /// Where lines go: stderr, directly (the CLI), or through `LogLineWriter` (the daemon).
    var output: @Sendable (String) -> Void = { line in StandardStreams.err(Array(line.utf8)) }

    // Called for every request by the access log: built by appending, without Foundation's formatting.
    func log(event: LogEvent) {
        var prefix: [UInt8] = []
        prefix.reserveCapacity(40)
        Self.appendPrefix(level: event.level, toJournal: toJournal, to: &prefix)
        var line = String(decoding: prefix, as: UTF8.self)
        line.reserveCapacity(160)
        // One event, one line: a newline inside a message must not forge a second entry.
        Self.appendSingleLine(event.message.description, to: &line)
        // The access log's message already says method, path, status, bytes and time: its http.* fields
        // are for handlers that store fields apart.
        let explicit = event.metadata ?? [:]
        if !metadata.isEmpty || explicit.keys.contains(where: { !$0.hasPrefix("http.") }) {
            var fields = metadata
            fields.merge(explicit) { _, new in new }
            for (key, value) in fields.sorted(by: { $0.key < $1.key }) where !key.hasPrefix("http.") {
                line += " "
                Self.appendSingleLine("\(key)=\(value)", to: &line)
            }
        }
        line += "\n"
        output(line)
    }

    static func appendSingleLine(_ text: String, to line: inout String) {
        guard text.utf8.contains(0x0A) else { line += text; return }
        for character in text.unicodeScalars {
            if character == "\n" { line += "\\n" } else { line.unicodeScalars.append(character) }
        }
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

    /// What starts every line: `<6>` for the journal, else `2026-11-23T10:54:57.123Z info `.
    static func appendPrefix(level: Logger.Level, toJournal: Bool, to line: inout [UInt8]) {
        if toJournal {
            line.append(UInt8(ascii: "<"))
            line.append(UInt8(ascii: "0") + UInt8(Self.priority(level)))  // one digit, 2…7
            line.append(UInt8(ascii: ">"))
        } else {
            Self.appendTimestamp(to: &line)
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: level.rawValue.utf8)
            line.append(UInt8(ascii: " "))
        }
    }

    /// Now as `2026-11-23T10:54:57.123Z`.
    static func timestamp() -> String {
        var text: [UInt8] = []
        Self.appendTimestamp(to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Now as `2026-11-23T10:54:57.123Z`, appended.
    static func appendTimestamp(to line: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        // The part up to the second changes once a second; the access log asks many times a second.
        let second = Int(now.tv_sec)
        currentSecond.withLock { cached in
            if cached.second != second {
                var time = now.tv_sec
                var parts = tm()
                gmtime_r(&time, &parts)
                let text = digits(Int(parts.tm_year) + 1900, 4) + "-" + digits(Int(parts.tm_mon) + 1, 2) + "-"
                    + digits(Int(parts.tm_mday), 2) + "T" + digits(Int(parts.tm_hour), 2) + ":" + digits(Int(parts.tm_min), 2)
                    + ":" + digits(Int(parts.tm_sec), 2)
                cached = (second, Array(text.utf8))
            }
            line.append(contentsOf: cached.text)
        }
        let millis = Int(now.tv_nsec / 1_000_000)
        line.append(UInt8(ascii: "."))
        line.append(UInt8(ascii: "0") + UInt8(millis / 100))
        line.append(UInt8(ascii: "0") + UInt8(millis / 10 % 10))
        line.append(UInt8(ascii: "0") + UInt8(millis % 10))
        line.append(UInt8(ascii: "Z"))
    }

    private static let currentSecond = Mutex<(second: Int, text: [UInt8])>((-1, []))

    private static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
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
