import HealthRecord
import Store

/// Why a request, a patient or a whole sync failed. Each case reads as one line for `/imports.json`, the
/// log and the CLI; none of them carries a token, a password or record content.
public enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The connection failed (refused, reset, DNS…).
    case network(url: String, reason: String)
    /// No complete answer within the request's time limit.
    case timedOut(url: String, seconds: Double)
    /// A download received nothing for its stall limit (`HTTPDownload.stallSeconds`), long before its deadline.
    case stalled(url: String, seconds: Double)
    /// The body ended before its announced length.
    case truncated(url: String, received: Int, expected: Int)
    /// The answer is larger than the limit for its kind.
    case tooLarge(url: String, limit: Int)
    /// An unexpected status (a `5xx` or `429` is worth a retry, others are not).
    case status(url: String, code: Int)
    /// The server wants the user to sign in again: a `401` for a fresh token, `invalid_grant`, a redirect
    /// to its sign-in page. Not retried: the source waits for the user.
    case needsSignIn(String)
    /// The token endpoint answered something that is not a token.
    case badTokenResponse(String)
    /// The patient feed is not an Atom feed we can read.
    case badFeed(String)
    /// A record could not be parsed; nothing of that patient was stored.
    case badRecord(recordID: String, reason: String)
    /// A FHIR server refused with an `OperationOutcome`: its status and what its issue says.
    case outcome(url: String, code: Int, text: String)
    /// The store refused a write.
    case store(String)
    /// A file could not be written (a download's file on a full disk).
    case file(path: String, reason: String)
    /// The source's settings cannot work (a bad URL…).
    case configuration(String)
    /// Another process took the job over (our lease lapsed), or the job or its source was removed.
    case leaseLost
    /// The store was locked or the process is stopping.
    case stopped

    /// Whether trying again later may succeed: network trouble, time-outs, truncation, `5xx` and `429`.
    public var isTransient: Bool {
        switch self {
        case .network, .timedOut, .stalled, .truncated: return true
        case .status(_, let code), .outcome(_, let code, _): return code >= 500 || code == 429 || code == 408
        default: return false
        }
    }

    public var description: String {
        switch self {
        case let .network(url, reason): return "cannot reach \(url): \(reason)"
        case let .timedOut(url, seconds): return "no complete answer from \(url) within \(Self.format(seconds)) s"
        case let .stalled(url, seconds): return "nothing received from \(url) for \(Self.format(seconds)) s"
        case let .truncated(url, received, expected): return "the answer from \(url) ended after \(received) of \(expected) bytes"
        case let .tooLarge(url, limit): return "the answer from \(url) is larger than the limit of \(limit) bytes"
        case let .status(url, code): return "\(url) answered \(code)"
        case let .outcome(url, code, text): return "\(url) answered \(code): \(text)"
        case let .needsSignIn(reason): return "sign-in needed: \(reason)"
        case let .badTokenResponse(reason): return "the token endpoint's answer is unusable: \(reason)"
        case let .badFeed(reason): return "the patient feed is unreadable: \(reason)"
        case let .badRecord(id, reason): return "record \(id): \(reason)"
        case let .store(reason): return "the store refused the import: \(reason)"
        case let .file(path, reason): return "cannot write \(path): \(reason)"
        case let .configuration(reason): return reason
        case .leaseLost: return "another process took the job over"
        case .stopped: return "stopped (the store was locked or the process is stopping)"
        }
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    public static func from(_ error: StoreError) -> SyncError {
        if case .closed = error { return .stopped }
        return .store(error.description)
    }
}
