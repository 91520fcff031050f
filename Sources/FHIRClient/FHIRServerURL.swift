import FoundationEssentials
import ImportJobs

/// A FHIR server's base URL as a person gives it (`https://fhir.example.org/r4`): http or https, a host,
/// no query, fragment or credentials; kept without its trailing slash. Every URL the sync builds is under
/// it, and every `next` link the server sends must be too.
public struct FHIRServerURL: Sendable, Equatable {
    public let base: URL
    public var text: String { base.absoluteString }

    public init(_ text: String) throws(FHIRSignInError) {
        if let problem = Self.problem(with: text) { throw .badURL(problem) }
        var trimmed = text
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let url = URL(string: trimmed) else { throw .badURL("\(text.prefix(100)) is not a URL") }
        base = url
    }

    /// Why `text` cannot be a FHIR base URL; nil when it can.
    public static func problem(with text: String) -> String? {
        guard text.utf8.count <= 2048, let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty else {
            return "the FHIR server URL must be an http or https URL with a host"
        }
        if components.query != nil || components.fragment != nil { return "the FHIR server URL must not have a query or fragment" }
        if components.user != nil || components.password != nil { return "the FHIR server URL must not hold a user name or password" }
        return nil
    }

    /// `base` + `/` + a path of segments, each percent-encoded, with a query.
    public func url(_ segments: [String], query: [(String, String)] = []) -> URL {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false) ?? URLComponents()
        let path = segments.map { PercentEncoding.encode($0) }.joined(separator: "/")
        components.percentEncodedPath = (components.percentEncodedPath.hasSuffix("/") ? components.percentEncodedPath : components.percentEncodedPath + "/") + path
        if !query.isEmpty {
            components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) }
            // A `+` (a time zone in `_since`) would arrive as a space: encode it.
            components.percentEncodedQuery = components.percentEncodedQuery?.replacing("+", with: "%2B")
        }
        return components.url ?? base
    }

    /// Whether `url` is on this server (same scheme, host and port, under the base path): a `next` link
    /// elsewhere is never followed.
    public func contains(_ url: URL) -> Bool {
        guard let a = URLComponents(url: base, resolvingAgainstBaseURL: false), let b = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return false }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && (a.port ?? Self.defaultPort(a.scheme)) == (b.port ?? Self.defaultPort(b.scheme))
            && (b.path == a.path || b.path.hasPrefix(a.path.hasSuffix("/") ? a.path : a.path + "/"))
    }

    static func defaultPort(_ scheme: String?) -> Int { scheme?.lowercased() == "https" ? 443 : 80 }
}

/// Why a sign-in cannot begin or complete, as a person reads it.
public enum FHIRSignInError: Error, Sendable, Equatable, CustomStringConvertible {
    case badURL(String)
    /// Discovery found no usable authorization and token endpoints.
    case discovery(String)
    /// The server cannot do what SMART App Launch with PKCE needs.
    case unsupported(String)
    case network(SyncError)
    case store(String)

    public var description: String {
        switch self {
        case .badURL(let reason), .discovery(let reason), .unsupported(let reason), .store(let reason): return reason
        case .network(let error): return error.description
        }
    }
}
