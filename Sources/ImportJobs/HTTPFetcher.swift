import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// One complete answer, within its size cap.
public struct HTTPAnswer: Sendable {
    public var status: Int
    /// Header names in lower case.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// HTTP for one runner, over one `URLSession` (FoundationNetworking, on libcurl).
///
/// - Every request has a deadline: libcurl's timer (whole seconds) and our own, which also ends a
///   request that libcurl would let hang; the caller's task being cancelled ends it too.
/// - Every answer has a size cap: refused from its `Content-Length` before the body comes, or as soon
///   as the bytes received pass it; a body shorter than its `Content-Length` is `truncated`.
/// - Redirects are never followed: for RHEx a `302` means "go to the sign-in page", which is an answer.
/// - Nothing is cached, stored or sent implicitly: no URL cache (records are patient data and must
///   not land in a plain-text cache on disk), no cookies, no credential store.
///
/// The session calls its delegate on an operation queue of its own; the delegate only appends bytes
/// and resumes continuations, under a mutex.
public final class HTTPFetcher: Sendable {
    private let configuration: URLSessionConfiguration
    private let delegate: FetchDelegate
    public let timeoutSeconds: Double
    /// Where deadlines fire: a queue of ours, not the global one.
    private static let timerQueue = DispatchQueue(label: "hreaderd.rhex.deadlines")
    /// After a deadline cancels a task, how long libcurl has to report it before we stop waiting.
    private static let cancelGraceSeconds = 2.0

    private enum SessionState {
        case notYet
        case open(URLSession)
        case closed
    }

    /// Made at the first request, not with the fetcher: a daemon whose sources are all files never
    /// starts libcurl (and the TLS library it initialises), which keeps several MB out of its memory.
    private let session = Mutex<SessionState>(.notYet)

    public init(timeoutSeconds: Double, maxConnectionsPerHost: Int) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCredentialStorage = nil
        // libcurl's timer counts whole seconds (a fraction would become 0); ours is exact.
        let whole = max(1, timeoutSeconds.rounded(.up))
        configuration.timeoutIntervalForRequest = whole
        configuration.timeoutIntervalForResource = whole
        configuration.httpMaximumConnectionsPerHost = max(1, maxConnectionsPerHost)
        self.configuration = configuration
        self.delegate = FetchDelegate()
        self.timeoutSeconds = timeoutSeconds
    }

    /// The session, made now if this is the first request; nil once closed.
    private func openSession() -> URLSession? {
        session.withLock { state in
            switch state {
            case .open(let session): return session
            case .closed: return nil
            case .notYet:
                let queue = OperationQueue()
                queue.name = "hreaderd.rhex.http"
                queue.maxConcurrentOperationCount = 1
                let made = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
                state = .open(made)
                return made
            }
        }
    }

    /// Cancels what is in flight and releases the session (which holds its delegate until then).
    public func close() {
        let open = session.withLock { state -> URLSession? in
            defer { state = .closed }
            if case .open(let session) = state { return session }
            return nil
        }
        open?.invalidateAndCancel()
    }

    /// Sends `request` and returns the whole answer, whatever its status.
    public func fetch(_ request: URLRequest, limit: Int) async throws(SyncError) -> HTTPAnswer {
        var request = request
        request.timeoutInterval = max(1, timeoutSeconds.rounded(.up))
        let display = Self.display(request.url)
        guard let session = openSession() else { throw .stopped }
        let task = session.dataTask(with: request)
        let id = task.taskIdentifier
        let delegate = delegate
        let timeout = timeoutSeconds
        let result: Result<HTTPAnswer, SyncError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                delegate.register(id, Pending(continuation: continuation, limit: limit, url: display, timeoutSeconds: timeout))
                guard !Task.isCancelled else {
                    delegate.finish(id, with: .failure(.stopped))
                    return
                }
                let deadline = DispatchWorkItem {
                    guard delegate.fail(id, with: .timedOut(url: display, seconds: timeout)) else { return }
                    task.cancel()
                    // Should libcurl never report the cancelled task, stop waiting for it anyway.
                    Self.timerQueue.asyncAfter(deadline: .now() + Self.cancelGraceSeconds) {
                        delegate.finish(id, with: .failure(.timedOut(url: display, seconds: timeout)))
                    }
                }
                delegate.setDeadline(id, deadline)
                Self.timerQueue.asyncAfter(deadline: .now() + timeout, execute: deadline)
                task.resume()
            }
        } onCancel: {
            if delegate.fail(id, with: .stopped) { task.cancel() }
        }
        return try result.get()
    }

    /// A URL as it may be shown: scheme, host, port and path; never the query.
    public static func display(_ url: URL?) -> String {
        guard let url, let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return "(no URL)" }
        var shown = "\(components.scheme ?? "http")://\(components.host ?? "")"
        if let port = components.port { shown += ":\(port)" }
        shown += components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return shown
    }
}

/// A request in flight, as the delegate tracks it. Unchecked: `DispatchWorkItem` is not marked
/// Sendable, but its `cancel()` is thread-safe, and that is all that is done with it.
struct Pending: @unchecked Sendable {
    struct Deadline: @unchecked Sendable { let item: DispatchWorkItem }

    let continuation: CheckedContinuation<Result<HTTPAnswer, SyncError>, Never>
    let limit: Int
    let url: String
    let timeoutSeconds: Double
    var body: [UInt8] = []
    /// Set when we ended the task ourselves (deadline, size cap, cancellation): what to report.
    var failure: SyncError?
    var deadline: DispatchWorkItem?
}

/// The session's delegate: collects each task's bytes under its cap and resumes its continuation once.
final class FetchDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: the only state is the mutex-protected table.
    private let table = Mutex<[Int: Pending]>([:])

    func register(_ id: Int, _ pending: Pending) {
        table.withLock { $0[id] = pending }
    }

    func setDeadline(_ id: Int, _ item: DispatchWorkItem) {
        let box = Pending.Deadline(item: item)
        table.withLock { $0[id]?.deadline = box.item }
    }

    /// Records why we are ending a task; false when it is already over (or already failing).
    @discardableResult
    func fail(_ id: Int, with failure: SyncError) -> Bool {
        table.withLock { table in
            guard table[id] != nil, table[id]?.failure == nil else { return false }
            table[id]?.failure = failure
            table[id]?.body = []
            return true
        }
    }

    /// Resumes the task's continuation with `result`, unless it was resumed already.
    func finish(_ id: Int, with result: Result<HTTPAnswer, SyncError>) {
        guard let pending = table.withLock({ $0.removeValue(forKey: id) }) else { return }
        pending.deadline?.cancel()
        if let failure = pending.failure {
            pending.continuation.resume(returning: .failure(failure))
        } else {
            pending.continuation.resume(returning: result)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let id = dataTask.taskIdentifier
        let expected = response.expectedContentLength
        let over = table.withLock { table -> Bool in
            guard let pending = table[id], pending.failure == nil else { return false }
            if expected > Int64(pending.limit) {
                table[id]?.failure = .tooLarge(url: pending.url, limit: pending.limit)
                return true
            }
            if expected > 0 { table[id]?.body.reserveCapacity(Int(expected)) }
            return false
        }
        completionHandler(over ? .cancel : .allow)
        // FoundationNetworking ignores the disposition on Linux; cancel the task ourselves.
        if over { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let id = dataTask.taskIdentifier
        let over = table.withLock { table -> Bool in
            guard let pending = table[id], pending.failure == nil else { return false }
            if pending.body.count + data.count > pending.limit {
                table[id]?.failure = .tooLarge(url: pending.url, limit: pending.limit)
                table[id]?.body = []
                return true
            }
            table[id]?.body.append(contentsOf: data)
            return false
        }
        if over { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        // Never follow: the redirect itself is the answer (for RHEx, "sign in again").
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let id = task.taskIdentifier
        let (url, timeout) = table.withLock { ($0[id]?.url, $0[id]?.timeoutSeconds ?? 0) }
        let shown = url ?? HTTPFetcher.display(task.originalRequest?.url)
        if let error {
            finish(id, with: .failure(Self.describe(error, url: shown, timeoutSeconds: timeout)))
            return
        }
        guard let response = task.response as? HTTPURLResponse else {
            finish(id, with: .failure(.network(url: shown, reason: "no HTTP answer")))
            return
        }
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        let body = table.withLock { table -> [UInt8] in
            let body = table[id]?.body ?? []
            table[id]?.body = []
            return body
        }
        // libcurl reports a body cut short; this catches it should it not (never for a decoded body,
        // whose length is not the one announced).
        let encoded = headers["content-encoding"].map { $0.lowercased() != "identity" } ?? false
        if !encoded, response.statusCode != 304, let announced = headers["content-length"].flatMap({ Int($0) }), announced != body.count {
            finish(id, with: .failure(.truncated(url: shown, received: body.count, expected: announced)))
            return
        }
        finish(id, with: .success(HTTPAnswer(status: response.statusCode, headers: headers, body: body)))
    }

    static func describe(_ error: any Error, url: String, timeoutSeconds: Double) -> SyncError {
        guard let error = error as? URLError else { return .network(url: url, reason: "\(error)") }
        switch error.code {
        case .timedOut: return .timedOut(url: url, seconds: timeoutSeconds)
        case .cancelled: return .stopped
        case .cannotConnectToHost: return .network(url: url, reason: "connection refused")
        case .cannotFindHost, .dnsLookupFailed: return .network(url: url, reason: "unknown host")
        case .networkConnectionLost: return .network(url: url, reason: "the connection was lost")
        case .notConnectedToInternet: return .network(url: url, reason: "no network")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
             .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            return .network(url: url, reason: "TLS failed (\(error.code.rawValue))")
        case .badServerResponse: return .network(url: url, reason: "a malformed HTTP answer")
        default: return .network(url: url, reason: "URL error \(error.code.rawValue)")
        }
    }
}
