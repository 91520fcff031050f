import CLibCurl
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

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

/// A request to send: a URL, a method, headers, a body.
public struct HTTPRequest: Sendable {
    public var url: URL
    public var httpMethod = "GET"
    public private(set) var headers: [(name: String, value: String)] = []
    public var httpBody: [UInt8]?

    public init(url: URL) { self.url = url }

    /// Sets a header, replacing one of the same name.
    public mutating func setValue(_ value: String, forHTTPHeaderField name: String) {
        headers.removeAll { $0.name.lowercased() == name.lowercased() }
        headers.append((name, value))
    }
}

/// HTTP for one runner, on libcurl's C API (one multi handle driven by a thread of its own, never a NIO
/// event loop or the concurrency pool): TLS from the system's OpenSSL and CA store, the usual proxy
/// variables (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`), HTTP/2 where the server offers it over TLS.
///
/// - Every request has a deadline (libcurl's own, in milliseconds); the caller's task being cancelled
///   ends it too.
/// - Every answer has a size cap: refused from its `Content-Length` before the body comes, or as soon
///   as the bytes received pass it; a body shorter than its `Content-Length` is `truncated`.
/// - Redirects are never followed: for RHEx a `302` means "go to the sign-in page", which is an answer.
/// - Nothing is cached, stored or sent implicitly: no cookies, no credentials, http and https only.
public final class HTTPFetcher: Sendable {
    public let timeoutSeconds: Double
    let maxConnectionsPerHost: Int

    private enum DriverState {
        case notYet
        case running(CurlDriver)
        /// libcurl could not be loaded: every request says so.
        case unavailable
        case closed
    }

    /// Started at the first request, not with the fetcher: a daemon whose sources are all files never
    /// starts libcurl (and the TLS library it initialises), which keeps several MB out of its memory.
    private let driver = Mutex<DriverState>(.notYet)

    public init(timeoutSeconds: Double, maxConnectionsPerHost: Int) {
        self.timeoutSeconds = timeoutSeconds
        self.maxConnectionsPerHost = max(1, maxConnectionsPerHost)
    }

    deinit { close() }

    func runningDriver() throws(SyncError) -> CurlDriver {
        let found = driver.withLock { state -> Result<CurlDriver, SyncError> in
            switch state {
            case .running(let driver): return .success(driver)
            case .closed: return .failure(.stopped)
            case .unavailable: return .failure(CurlLibrary.missing)
            case .notYet:
                guard let made = CurlDriver(maxConnectionsPerHost: maxConnectionsPerHost) else {
                    state = .unavailable
                    return .failure(CurlLibrary.missing)
                }
                state = .running(made)
                return .success(made)
            }
        }
        return try found.get()
    }

    /// Cancels what is in flight and stops the transfer thread.
    public func close() {
        let running = driver.withLock { state -> CurlDriver? in
            defer { state = .closed }
            if case .running(let driver) = state { return driver }
            return nil
        }
        running?.stop()
    }

    /// Sends `request` and returns the whole answer, whatever its status.
    public func fetch(_ request: HTTPRequest, limit: Int) async throws(SyncError) -> HTTPAnswer {
        let driver = try runningDriver()
        let transfer = Transfer(request: request, limit: limit, timeoutSeconds: timeoutSeconds, display: Self.display(request.url))
        return try await perform(transfer, on: driver).get()
    }

    /// Hands `transfer` to the driver and waits for its end; cancelling the task cancels the transfer (one
    /// cancelled before it was handed over ends `stopped` without reaching the driver). For `fetch` and
    /// `download` (HTTPDownload.swift), hence not private to this file.
    func perform(_ transfer: Transfer, on driver: CurlDriver) async -> Result<HTTPAnswer, SyncError> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.setContinuation(continuation)
                if Task.isCancelled {
                    transfer.finish(.failure(.stopped))
                    return
                }
                driver.submit(transfer)
            }
        } onCancel: {
            driver.cancel(transfer)
        }
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

/// libcurl, loaded at the first request (`hcurl_load`: dlopen, its functions, `curl_global_init`, once).
enum CurlLibrary {
    /// nil when libcurl (`libcurl.so.4`) cannot be loaded.
    nonisolated(unsafe) static let api: UnsafePointer<hcurl_api>? = {
        let api = UnsafeMutablePointer<hcurl_api>.allocate(capacity: 1)
        api.initialize(to: hcurl_api())
        guard hcurl_load(api) == 0 else { return nil }
        return UnsafePointer(api)
    }()

    static let missing = SyncError.configuration("libcurl (libcurl.so.4, Debian's libcurl4) cannot be loaded: install it to sync from servers")
}

/// One request in flight: its easy handle, what has come so far, and the continuation resumed once.
/// Unchecked Sendable: the handle and buffers are touched only by the driver's thread (and by libcurl's
/// callbacks on it); the continuation is behind a mutex.
final class Transfer: @unchecked Sendable {
    let request: HTTPRequest
    let limit: Int
    let timeoutSeconds: Double
    let display: String
    /// For a download: the file the body goes to, and how slow a transfer may be (see `HTTPFetcher.download`).
    let sink: DownloadSink?
    var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    var body: [UInt8] = []
    var headers: [String: String] = [:]
    /// The status of the answer whose head is coming or came (from its status line).
    var status = 0
    /// Set when we end the transfer ourselves (size cap): what to report.
    var failure: SyncError?
    /// When the transfer began: a download's time-out before its deadline was its stall limit.
    let started = ContinuousClock.now
    private let continuation = Mutex<CheckedContinuation<Result<HTTPAnswer, SyncError>, Never>?>(nil)
    private let done = Atomic<Bool>(false)

    init(request: HTTPRequest, limit: Int, timeoutSeconds: Double, display: String, sink: DownloadSink? = nil) {
        self.request = request
        self.limit = limit
        self.timeoutSeconds = timeoutSeconds
        self.display = display
        self.sink = sink
    }

    func setContinuation(_ continuation: CheckedContinuation<Result<HTTPAnswer, SyncError>, Never>) {
        self.continuation.withLock { $0 = continuation }
    }

    var isFinished: Bool { done.load(ordering: .acquiring) }

    /// Resumes the caller with `result`, once; later calls do nothing.
    func finish(_ result: Result<HTTPAnswer, SyncError>) {
        guard !done.exchange(true, ordering: .acquiringAndReleasing) else { return }
        continuation.withLock { $0?.resume(returning: result); $0 = nil }
    }
}

/// The libcurl multi handle and the thread that drives it. Requests come in through `submit`; the thread
/// adds them, lets libcurl work, hands each finished one back, and sleeps in `curl_multi_poll` until
/// there is network work or `curl_multi_wakeup` says there is something new.
final class CurlDriver: @unchecked Sendable {
    private struct Inbox {
        var submitted: [Transfer] = []
        var cancelled: [Transfer] = []
        var stopping = false
    }

    private let api: UnsafePointer<hcurl_api>
    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())
    private var thread = pthread_t()
    /// Transfers libcurl is working on, by easy handle; the thread's own.
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]

    /// nil when libcurl cannot be loaded (or has no multi handle to give).
    init?(maxConnectionsPerHost: Int) {
        guard let api = CurlLibrary.api, let multi = hcurl_multi_init(api) else { return nil }
        self.api = api
        self.multi = multi
        _ = hcurl_multi_setopt_long(api, multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxConnectionsPerHost)
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { context in
            let driver = Unmanaged<CurlDriver>.fromOpaque(context!).takeRetainedValue()
            driver.loop()
            return nil
        }, context)
    }

    func submit(_ transfer: Transfer) {
        let refused = inbox.withLock { inbox -> Bool in
            if inbox.stopping { return true }
            inbox.submitted.append(transfer)
            return false
        }
        if refused { transfer.finish(.failure(.stopped)) } else { hcurl_multi_wakeup(api, multi) }
    }

    func cancel(_ transfer: Transfer) {
        inbox.withLock { $0.cancelled.append(transfer) }
        hcurl_multi_wakeup(api, multi)
    }

    /// Ends every transfer (`stopped`) and the thread; returns when it has.
    func stop() {
        inbox.withLock { $0.stopping = true }
        hcurl_multi_wakeup(api, multi)
        pthread_join(thread, nil)
    }

    private func loop() {
        while true {
            let (submitted, cancelled, stopping) = inbox.withLock { inbox in
                defer { inbox.submitted = []; inbox.cancelled = [] }
                return (inbox.submitted, inbox.cancelled, inbox.stopping)
            }
            for transfer in cancelled { end(transfer, with: .failure(.stopped)) }
            if stopping {
                for transfer in Array(active.values) + submitted { end(transfer, with: .failure(.stopped)) }
                hcurl_multi_cleanup(api, multi)
                return
            }
            for transfer in submitted where !transfer.isFinished { start(transfer) }
            var running: Int32 = 0
            hcurl_multi_perform(api, multi, &running)
            var queued: Int32 = 0
            while let message = hcurl_multi_info_read(api, multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle, let transfer = active[easy] else { continue }
                let code = message.pointee.data.result
                end(transfer, with: result(of: transfer, code: code))
            }
            var ready: Int32 = 0
            hcurl_multi_poll(api, multi, 1000, &ready)
        }
    }

    private func start(_ transfer: Transfer) {
        guard let easy = hcurl_easy_init(api) else {
            transfer.finish(.failure(.network(url: transfer.display, reason: "libcurl could not start a transfer")))
            return
        }
        transfer.easy = easy
        let request = transfer.request
        _ = hcurl_setopt_string(api, easy, CURLOPT_URL, request.url.absoluteString)
        _ = hcurl_setopt_string(api, easy, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = hcurl_setopt_long(api, easy, CURLOPT_NOSIGNAL, 1)
        _ = hcurl_setopt_long(api, easy, CURLOPT_FOLLOWLOCATION, 0)
        _ = hcurl_setopt_long(api, easy, CURLOPT_TIMEOUT_MS, Int(max(1, transfer.timeoutSeconds * 1000)))
        _ = hcurl_setopt_long(api, easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        if let sink = transfer.sink {
            // A download's bytes are the file's (a Range counts them): no content encoding. A stalled transfer
            // (no byte for `stallSeconds`) ends as a time-out long before the whole download's deadline.
            _ = hcurl_setopt_long(api, easy, CURLOPT_LOW_SPEED_LIMIT, 1)
            _ = hcurl_setopt_long(api, easy, CURLOPT_LOW_SPEED_TIME, max(1, Int(sink.stallSeconds.rounded(.up))))
            _ = hcurl_setopt_long(api, easy, CURLOPT_CONNECTTIMEOUT_MS, Int(max(1, sink.stallSeconds * 1000)))
        } else {
            // Every encoding libcurl can decode is offered and decoded; caps apply to the decoded body.
            _ = hcurl_setopt_string(api, easy, CURLOPT_ACCEPT_ENCODING, "")
        }
        _ = hcurl_setopt_string(api, easy, CURLOPT_USERAGENT, "hreaderd")
        switch request.httpMethod {
        case "GET": _ = hcurl_setopt_long(api, easy, CURLOPT_HTTPGET, 1)
        case "POST":
            _ = hcurl_setopt_long(api, easy, CURLOPT_POST, 1)
        default:
            _ = hcurl_setopt_string(api, easy, CURLOPT_CUSTOMREQUEST, request.httpMethod)
        }
        if let body = request.httpBody {
            _ = hcurl_setopt_offset(api, easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            // COPYPOSTFIELDS: libcurl keeps its own copy.
            body.withUnsafeBufferPointer { buffer in
                _ = hcurl_setopt_pointer(api, easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!))
            }
        }
        var list: UnsafeMutablePointer<curl_slist>?
        for header in request.headers { list = hcurl_slist_append(api, list, "\(header.name): \(header.value)") }
        // No `Expect: 100-continue` wait on a POST.
        list = hcurl_slist_append(api, list, "Expect:")
        transfer.headerList = list
        _ = hcurl_setopt_pointer(api, easy, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list))
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        _ = hcurl_setopt_pointer(api, easy, CURLOPT_WRITEDATA, context)
        _ = hcurl_setopt_data_callback(api, easy, CURLOPT_WRITEFUNCTION) { data, size, count, user in
            let transfer = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            let bytes = size * count
            if let sink = transfer.sink {
                guard transfer.failure == nil else { return 0 }
                if let failure = sink.take(UnsafeRawBufferPointer(start: data, count: bytes), transfer: transfer) {
                    transfer.failure = failure
                    return 0 // aborts the transfer
                }
                return bytes
            }
            guard transfer.failure == nil, transfer.body.count + bytes <= transfer.limit else {
                transfer.failure = .tooLarge(url: transfer.display, limit: transfer.limit)
                transfer.body = []
                return 0 // aborts the transfer
            }
            data.map { transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: $0, count: bytes)) }
            return bytes
        }
        _ = hcurl_setopt_pointer(api, easy, CURLOPT_HEADERDATA, context)
        _ = hcurl_setopt_data_callback(api, easy, CURLOPT_HEADERFUNCTION) { data, size, count, user in
            let transfer = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            let bytes = size * count
            guard let data else { return bytes }
            let line = String(decoding: UnsafeRawBufferPointer(start: data, count: bytes), as: UTF8.self)
            if line.hasPrefix("HTTP/") {
                transfer.headers = [:] // a new response (after a 100 Continue, say)
                transfer.status = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
                return bytes
            }
            guard let colon = line.firstIndex(of: ":") else { return bytes }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmedWhitespace
            transfer.headers[name] = value
            // Refused before the body comes: announced larger than the cap.
            if name == "content-length", let length = Int(value), length > transfer.limit {
                transfer.failure = .tooLarge(url: transfer.display, limit: transfer.limit)
                return 0
            }
            return bytes
        }
        active[easy] = transfer
        hcurl_multi_add_handle(api, multi, easy)
    }

    /// Takes the transfer out of libcurl, frees its handle, and resumes its caller.
    private func end(_ transfer: Transfer, with result: Result<HTTPAnswer, SyncError>) {
        if let easy = transfer.easy {
            active.removeValue(forKey: easy)
            hcurl_multi_remove_handle(api, multi, easy)
            hcurl_easy_cleanup(api, easy)
            transfer.easy = nil
        }
        if let list = transfer.headerList {
            hcurl_slist_free_all(api, list)
            transfer.headerList = nil
        }
        transfer.finish(result)
    }

    func result(of transfer: Transfer, code: CURLcode) -> Result<HTTPAnswer, SyncError> {
        if let failure = transfer.failure { return .failure(failure) }
        guard let easy = transfer.easy else { return .failure(.stopped) }
        let url = transfer.display
        switch code {
        case CURLE_OK:
            var status = 0
            _ = hcurl_getinfo_long(api, easy, CURLINFO_RESPONSE_CODE, &status)
            return .success(HTTPAnswer(status: status, headers: transfer.headers, body: transfer.body))
        case CURLE_OPERATION_TIMEDOUT:
            // libcurl says the same for the deadline and for too slow a transfer (a stalled download).
            if let sink = transfer.sink, ContinuousClock.now - transfer.started < .seconds(transfer.timeoutSeconds) {
                return .failure(.stalled(url: url, seconds: sink.stallSeconds))
            }
            return .failure(.timedOut(url: url, seconds: transfer.timeoutSeconds))
        case CURLE_PARTIAL_FILE where transfer.sink != nil:
            let sink = transfer.sink!
            return .failure(.truncated(url: url, received: Int(sink.written), expected: Int(sink.total ?? sink.written)))
        case CURLE_PARTIAL_FILE:
            let expected = transfer.headers["content-length"].flatMap { Int($0) } ?? transfer.body.count
            return .failure(.truncated(url: url, received: transfer.body.count, expected: expected))
        case CURLE_COULDNT_CONNECT:
            return .failure(.network(url: url, reason: "connection refused"))
        case CURLE_COULDNT_RESOLVE_HOST:
            return .failure(.network(url: url, reason: "unknown host"))
        case CURLE_COULDNT_RESOLVE_PROXY:
            return .failure(.network(url: url, reason: "unknown proxy host"))
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            return .failure(.network(url: url, reason: "the connection was lost"))
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE:
            return .failure(.network(url: url, reason: "TLS failed (\(String(cString: hcurl_easy_strerror(api, code))))"))
        case CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_BAD_CONTENT_ENCODING:
            return .failure(.network(url: url, reason: "a malformed HTTP answer"))
        default:
            return .failure(.network(url: url, reason: String(cString: hcurl_easy_strerror(api, code))))
        }
    }
}
