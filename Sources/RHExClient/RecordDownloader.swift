import ImportJobs
import Records
import FoundationEssentials

/// Authorized requests to one RHEx server during a sync: the token as `Authorization: Bearer` (never
/// in the URL), one renewal and one repeat on a `401`, a redirect taken as "sign in again", and
/// retries with backoff on network errors, time-outs and `5xx`.
struct RHExAPI: Sendable {
    let keeper: TokenKeeper
    let fetcher: HTTPFetcher
    let retry: Backoff

    /// GETs `url`; any `2xx` or `304` is returned, anything else thrown.
    func get(_ url: URL, accept: String, ifNoneMatch: String? = nil, limit: Int) async throws(SyncError) -> HTTPAnswer {
        var attempt = 1
        while true {
            do throws(SyncError) {
                return try await getOnce(url, accept: accept, ifNoneMatch: ifNoneMatch, limit: limit)
            } catch where error.isTransient && attempt < retry.attempts {
                let delay = retry.delay(after: attempt)
                do { try await Task.sleep(for: .seconds(delay)) } catch { throw .stopped }
                attempt += 1
            }
        }
    }

    private func getOnce(_ url: URL, accept: String, ifNoneMatch: String?, limit: Int) async throws(SyncError) -> HTTPAnswer {
        let token = try await keeper.token()
        var answer = try await fetcher.fetch(request(url, token: token, accept: accept, ifNoneMatch: ifNoneMatch), limit: limit)
        if answer.status == 401 {
            let renewed = try await keeper.rejected(token)
            answer = try await fetcher.fetch(request(url, token: renewed, accept: accept, ifNoneMatch: ifNoneMatch), limit: limit)
            if answer.status == 401 {
                throw .needsSignIn("the server refused a new access token (401 from \(HTTPFetcher.display(url)))")
            }
        }
        switch answer.status {
        case 200..<300, 304:
            return answer
        case 300..<400:
            throw .needsSignIn("\(HTTPFetcher.display(url)) redirected to \(OAuthClient.location(answer)) (\(answer.status))")
        default:
            throw .status(url: HTTPFetcher.display(url), code: answer.status)
        }
    }

    private func request(_ url: URL, token: String, accept: String, ifNoneMatch: String?) -> HTTPRequest {
        var request = HTTPRequest(url: url)
        request.httpMethod = "GET"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue(accept, forHTTPHeaderField: "Accept")
        if let ifNoneMatch { request.setValue(ifNoneMatch, forHTTPHeaderField: "If-None-Match") }
        return request
    }
}

/// One patient record, fetched with a conditional GET.
enum RecordDownload: Sendable {
    /// `304`: what the store holds is current.
    case notModified
    /// The record's bytes and its new ETag, if the server gave a usable one.
    case record(bytes: [UInt8], etag: String?)
}

struct RecordDownloader: Sendable {
    let api: RHExAPI
    let endpoints: RHExEndpoints
    let limit: Int

    /// The longest ETag we keep and send back.
    static let maximumETagBytes = 256

    func download(_ recordID: String, etag: String?) async throws(SyncError) -> RecordDownload {
        let answer = try await api.get(endpoints.record(recordID), accept: "application/json", ifNoneMatch: etag, limit: limit)
        if answer.status == 304 { return .notModified }
        guard answer.status == 200 else { throw .status(url: HTTPFetcher.display(endpoints.record(recordID)), code: answer.status) }
        return .record(bytes: answer.body, etag: answer.header("etag").flatMap(Self.usableETag))
    }

    /// An ETag we can store and send back as it came: printable ASCII, not too long.
    static func usableETag(_ value: String) -> String? {
        let trimmed = value.trimmedWhitespace
        guard !trimmed.isEmpty, trimmed.utf8.count <= maximumETagBytes,
              trimmed.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) else { return nil }
        return trimmed
    }
}
