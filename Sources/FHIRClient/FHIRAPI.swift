import FoundationEssentials
import ImportJobs
import Records

/// Authorized reads from one FHIR server during a sync: the token as `Authorization: Bearer` (never in
/// the URL), one renewal and one repeat on a `401`, a `429`'s `Retry-After` waited out (within limits),
/// retries with backoff on network errors, time-outs and `5xx`, and an `OperationOutcome`'s words in the
/// error of any other refusal. Redirects are answers, never followed.
struct FHIRAPI: Sendable {
    let keeper: TokenKeeper
    let fetcher: HTTPFetcher
    let configuration: SyncConfiguration
    /// How long to wait; replaceable in tests.
    let sleep: @Sendable (Double) async throws -> Void

    static let accept = "application/fhir+json, application/json;q=0.9"
    /// A `Retry-After` that is not a number of seconds (an HTTP date, nothing): wait this long.
    static let defaultRetryAfterSeconds = 5.0

    /// GETs `url`; a `2xx` answer is returned, anything else thrown.
    func get(_ url: URL, limit: Int) async throws(SyncError) -> HTTPAnswer {
        var attempt = 1
        var rateLimited = 0
        while true {
            do throws(SyncError) {
                switch try await getOnce(url, limit: limit) {
                case .answer(let answer):
                    return answer
                case .rateLimited(let wait):
                    rateLimited += 1
                    guard rateLimited <= configuration.rateLimitWaits, wait <= configuration.longestRetryAfterSeconds else {
                        throw SyncError.status(url: HTTPFetcher.display(url), code: 429)
                    }
                    do { try await sleep(wait) } catch { throw SyncError.stopped }
                }
            } catch {
                guard error.isTransient, attempt < configuration.requestRetry.attempts else { throw error }
                do { try await sleep(configuration.requestRetry.delay(after: attempt)) } catch { throw .stopped }
                attempt += 1
            }
        }
    }

    enum Attempt {
        case answer(HTTPAnswer)
        /// `429`: wait this many seconds and ask again.
        case rateLimited(Double)
    }

    private func getOnce(_ url: URL, limit: Int) async throws(SyncError) -> Attempt {
        let token = try await keeper.token()
        var answer = try await fetcher.fetch(request(url, token: token), limit: limit)
        if answer.status == 401 {
            let renewed = try await keeper.rejected(token)
            answer = try await fetcher.fetch(request(url, token: renewed), limit: limit)
            if answer.status == 401 {
                throw .needsSignIn("the server refused a new access token (401 from \(HTTPFetcher.display(url)))")
            }
        }
        switch answer.status {
        case 200..<300:
            return .answer(answer)
        case 429:
            return .rateLimited(Self.retryAfter(answer.header("retry-after")))
        default:
            let shown = HTTPFetcher.display(url)
            if let text = OperationOutcomeText.read(answer.body) { throw .outcome(url: shown, code: answer.status, text: text) }
            throw .status(url: shown, code: answer.status)
        }
    }

    /// `Retry-After` in seconds (RFC 9110 §10.2.3); an HTTP date or nothing waits the default.
    static func retryAfter(_ value: String?) -> Double {
        guard let value, let seconds = Double(value.trimmedWhitespace), seconds >= 0, seconds.isFinite else {
            return defaultRetryAfterSeconds
        }
        return seconds
    }

    private func request(_ url: URL, token: String) -> HTTPRequest {
        var request = HTTPRequest(url: url)
        request.httpMethod = "GET"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue(Self.accept, forHTTPHeaderField: "Accept")
        return request
    }
}

/// What an `OperationOutcome` says, for the job's error: its issues' diagnostics or details, short.
enum OperationOutcomeText {
    static let maximumCharacters = 300

    static func read(_ body: [UInt8]) -> String? {
        guard !body.isEmpty, body.count <= 1 << 20, let document = JSONReading.parse(body, limit: 1 << 20),
              document.path("resourceType")?.text == "OperationOutcome" else { return nil }
        let texts = document.path("issue")?.array.compactMap { issue in
            issue.path("diagnostics")?.text ?? issue.path("details", "text")?.text ?? issue.path("code")?.text
        } ?? []
        guard !texts.isEmpty else { return nil }
        return String(texts.joined(separator: "; ").prefix(maximumCharacters))
    }
}
