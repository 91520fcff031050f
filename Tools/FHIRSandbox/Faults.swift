import Foundation
import HTTPKit

extension FHIRSandbox {
    /// A fault with its target and count, as the command line (`--fault`) and the admin route write it.
    public struct FaultSpec: Sendable, Equatable {
        public var fault: Fault
        public var target: Target
        /// nil: always.
        public var count: Int?

        public init(fault: Fault, target: Target = .any, count: Int? = 1) {
            self.fault = fault
            self.target = target
            self.count = count
        }

        /// `KIND[@TARGET][xN]`, or `…always`: KIND as `Fault(parsing:)` reads it, TARGET a `Target`
        /// (`token`, `everything`, `search`, `page`, `read`, `metadata`, `authorize`, `any`: the default),
        /// N the count (1 by default).
        public init(parsing spec: String) throws(SpecError) {
            var rest = Substring(spec)
            count = 1
            if rest.hasSuffix("always") {
                count = nil
                rest = rest.dropLast("always".count)
                if rest.hasSuffix("x") || rest.hasSuffix(",") { rest = rest.dropLast() }
            } else if let x = rest.lastIndex(of: "x"), let n = Int(rest[rest.index(after: x)...]), n > 0,
                      rest[..<x].last.map({ $0.isLetter || $0.isNumber }) ?? false {
                count = n
                rest = rest[..<x]
            }
            let parts = rest.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            fault = try Fault(parsing: parts[0])
            if parts.count == 2 {
                guard let parsed = Target(rawValue: parts[1]) else { throw SpecError("unknown fault target \(parts[1]) in \(spec)") }
                target = parsed
            } else {
                target = .any
            }
        }
    }

    public struct SpecError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }
}

extension FHIRSandbox.Fault {
    /// `500` (any status), `429=SECONDS`, `delay=SECONDS`, `truncate`, `expired-token`, `refuse-refresh`,
    /// `outcome=STATUS:TEXT`.
    public init(parsing text: String) throws(FHIRSandbox.SpecError) {
        if text == "429" {
            self = .tooManyRequests(retryAfter: 1)
        } else if text.hasPrefix("429="), let seconds = Int(text.dropFirst(4)), seconds >= 0 {
            self = .tooManyRequests(retryAfter: seconds)
        } else if let status = Int(text), (100...599).contains(status) {
            self = .status(status)
        } else if text.hasPrefix("delay="), let seconds = Double(text.dropFirst(6)), seconds >= 0 {
            self = .delay(seconds: seconds)
        } else if text.hasPrefix("outcome=") {
            let parts = text.dropFirst(8).split(separator: ":", maxSplits: 1).map(String.init)
            guard let status = parts.first.flatMap(Int.init), (100...599).contains(status) else {
                throw FHIRSandbox.SpecError("outcome= takes STATUS:TEXT")
            }
            self = .operationOutcome(status: status, text: parts.count == 2 ? parts[1] : "Injected fault.")
        } else {
            switch text {
            case "truncate": self = .truncate
            case "expired-token": self = .expiredToken
            case "refuse-refresh": self = .refuseRefresh
            default:
                throw FHIRSandbox.SpecError(
                    "unknown fault \(text): use 500 (any status), 429=SECONDS, delay=SECONDS, truncate, expired-token, refuse-refresh or outcome=STATUS:TEXT")
            }
        }
    }

    /// Whether the fault can apply to a request of this kind.
    func applies(to kind: FHIRSandbox.RequestKind) -> Bool {
        switch self {
        case .expiredToken: kind == .api
        case .refuseRefresh: kind == .refreshGrant
        default: true
        }
    }
}

extension FHIRSandbox {
    enum RequestKind: Equatable {
        /// A FHIR request that needs an access token.
        case api
        /// Discovery, the authorize page, a token request other than a refresh.
        case open
        case refreshGrant
    }

    /// How a fault's error answer is written.
    enum AnswerStyle {
        case fhir
        case oauth
    }

    /// Counts the request and takes the fault that applies to it, if one does (counting it down).
    func begin(_ target: Target, kind: RequestKind) -> Fault? {
        state.withLock { state -> Fault? in
            state.stats.requests[target, default: 0] += 1
            guard let index = state.faults.firstIndex(where: { rule in
                rule.remaining != 0 && (rule.target == .any || rule.target == target) && rule.fault.applies(to: kind)
            }) else { return nil }
            let fault = state.faults[index].fault
            if let remaining = state.faults[index].remaining {
                if remaining <= 1 {
                    state.faults.remove(at: index)
                } else {
                    state.faults[index].remaining = remaining - 1
                }
            }
            state.stats.faultsServed += 1
            return fault
        }
    }

    /// The answer a fault puts in place of the real one; nil when the request goes ahead (after a delay,
    /// perhaps, or to be truncated or refused later).
    func answer(for fault: Fault?, style: AnswerStyle) async -> Response? {
        guard let fault else { return nil }
        switch fault {
        case .status(let code):
            let status = HTTPResponseStatus(statusCode: code)
            switch style {
            case .fhir: return Self.outcome(status, code: code >= 500 ? "exception" : "processing", "Injected fault: \(code).")
            case .oauth: return Self.oauthError(status, code >= 500 ? "temporarily_unavailable" : "invalid_request", "Injected fault: \(code).")
            }
        case .tooManyRequests(let seconds):
            state.withLock { $0.stats.tooManyRequests += 1 }
            var response = style == .fhir
                ? Self.outcome(.tooManyRequests, code: "throttled", "Too many requests; try again in \(seconds) s.")
                : Self.oauthError(.tooManyRequests, "temporarily_unavailable", "Too many requests.")
            response.headers.replaceOrAdd(name: "Retry-After", value: String(seconds))
            return response
        case .operationOutcome(let code, let text):
            return Self.outcome(HTTPResponseStatus(statusCode: code), code: code >= 500 ? "exception" : "processing", text)
        case .delay(let seconds):
            await pause(seconds)
            return nil
        case .expiredToken:
            state.withLock { $0.stats.unauthorized += 1 }
            return Self.unauthorizedAnswer(error: "The access token expired.")
        case .truncate, .refuseRefresh:
            return nil
        }
    }

    /// Sleeps in small steps, so that `shutdown()` ends a hang at once; so does the handler's
    /// cancellation (the client went away).
    func pause(_ seconds: Double) async {
        let end = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while ContinuousClock.now < end, listener.isRunning {
            do { try await Task.sleep(for: min(.milliseconds(50), end - ContinuousClock.now)) } catch { return }
        }
    }

    /// The answer with its head promising the whole body, of which the client gets the first half.
    ///
    /// HTTPKit owns framing (`Content-Length` is the body's length), so the body goes out as a file that
    /// is cut after it was opened: the server promised the opened size, sends whole 128 KiB chunks
    /// (`FileBodyWriter.chunkSize`) while the file has them, and closes the connection at the first short
    /// one. The first half of the body is followed by spaces to the end of a chunk, where the file is cut.
    static func truncated(_ response: Response) -> Response {
        guard case .bytes(let buffer) = response.body, buffer.readableBytes > 1 else { return response }
        let body = Array(buffer.readableBytesView)
        let half = body.count / 2
        let chunk = 128 * 1024
        let cut = (half / chunk + 1) * chunk
        var padded = Array(body[..<half])
        padded.append(contentsOf: repeatElement(UInt8(ascii: " "), count: cut - half))
        padded.append(contentsOf: body[half...])
        var fallback = response
        fallback.body = .bytes(ByteBuffer(bytes: body[..<half]))
        var template = Array((NSTemporaryDirectory() + "/fhir-sandbox-truncate-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return fallback }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        defer { unlink(path) }
        let written = padded.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == padded.count, let file = try? OpenFile(path: path), truncate(path, off_t(cut)) == 0 else { return fallback }
        var cutResponse = response
        cutResponse.body = .file(file)
        return cutResponse
    }

    /// `401` with an OperationOutcome and `WWW-Authenticate: Bearer` (with `error="invalid_token"` when a
    /// token was sent).
    static func unauthorizedAnswer(error: String?) -> Response {
        var response = outcome(.unauthorized, code: "login", error ?? "An access token is required.")
        var challenge = #"Bearer realm="fhir-sandbox""#
        if let error { challenge += #", error="invalid_token", error_description="\#(error)""# }
        response.headers.replaceOrAdd(name: "WWW-Authenticate", value: challenge)
        return response
    }
}
