import Foundation
import Logging

enum Logging {
    /// One logger for the daemon, to stderr, one line per event (see `LineLogHandler`).
    static func makeLogger() -> Logger {
        let environment = ProcessInfo.processInfo.environment
        let level = environment["HREADERD_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let journal = LineLogHandler.stderrIsJournal(environment: environment)
        LoggingSystem.bootstrap { _ in LineLogHandler(logLevel: level, toJournal: journal) }
        return Logger(label: "hreaderd")
    }
}
