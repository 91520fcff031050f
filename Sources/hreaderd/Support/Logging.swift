import FoundationEssentials
import Logging

enum Logging {
    /// One logger for the daemon, to stderr, one line per event (see `LineLogHandler`), written from the
    /// log's own thread (`LogLineWriter`): call `flush()` before exiting.
    static func makeLogger() -> Logger {
        let environment = ProcessInfo.processInfo.environment
        let level = environment["HREADERD_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let journal = LineLogHandler.stderrIsJournal(environment: environment)
        LoggingSystem.bootstrap { _ in
            var handler = LineLogHandler(logLevel: level, toJournal: journal)
            handler.output = { line in LogLineWriter.shared.write(line) }
            return handler
        }
        return Logger(label: "hreaderd")
    }

    /// The access log's lines, straight into the same queue and framed as `makeLogger`'s handler frames its lines.
    static func accessLineOutput() -> AccessLineOutput {
        AccessLineOutput(toJournal: LineLogHandler.stderrIsJournal(environment: ProcessInfo.processInfo.environment))
    }

    /// Writes the lines still queued.
    static func flush() { LogLineWriter.shared.flush() }
}
