import ImportJobs
import Records
import FoundationEssentials

/// Where an RHEx server answers, from its base URL (the RHEx patient-data-server's routes): the patient feed at the base itself,
/// `oauth2/token`, and `records/{id}/c32/{id}.json` beneath it.
public struct RHExEndpoints: Sendable, Equatable {
    /// The base URL, with a trailing slash so that relative paths resolve beneath it.
    public let base: URL

    public init(url text: String) throws(SyncError) {
        if let problem = Self.problem(with: text) { throw .configuration(problem) }
        let withSlash = text.hasSuffix("/") ? text : text + "/"
        guard let url = URL(string: withSlash) else { throw .configuration("\(text) is not a URL") }
        base = url
    }

    /// Why `text` cannot be an RHEx server's base URL, or nil when it can: http or https, a host, no
    /// user or password (credentials never go in a URL), no query or fragment.
    public static func problem(with text: String) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            return "\(text.prefix(200)) is not a URL"
        }
        guard scheme == "http" || scheme == "https" else { return "the URL must be http or https, not \(scheme)" }
        guard let host = components.host, !host.isEmpty else { return "the URL has no host" }
        guard components.user == nil, components.password == nil else {
            return "the URL must not hold a user or password: pass them with --username and --user-password-file"
        }
        guard components.query == nil, components.fragment == nil else { return "the URL must not have a query or fragment" }
        return nil
    }

    /// Whether requests to this server cross the network unencrypted (plain http off the loopback).
    public var isInsecure: Bool {
        guard base.scheme?.lowercased() == "http", let host = base.host?.lowercased() else { return false }
        return !(host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127."))
    }

    public var feed: URL { base }

    public var token: URL { URL(string: "oauth2/token", relativeTo: base)?.absoluteURL ?? base }

    /// The record JSON of `recordID` (percent-encoded as one path segment).
    public func record(_ recordID: String) -> URL {
        let segment = Self.encodeSegment(recordID)
        return URL(string: "records/\(segment)/c32/\(segment).json", relativeTo: base)?.absoluteURL ?? base
    }

    /// Unreserved ASCII kept, every other byte `%XX`.
    static func encodeSegment(_ text: String) -> String { PercentEncoding.encode(text) }
}
