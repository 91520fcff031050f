import Foundation
import Logging

enum Logging {
    /// One logger for the daemon, to stderr: one line per event.
    static func makeLogger() -> Logger {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = ProcessInfo.processInfo.environment["HREADERD_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
            return handler
        }
        return Logger(label: "hreaderd")
    }
}
