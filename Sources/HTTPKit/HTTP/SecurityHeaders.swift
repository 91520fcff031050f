/// Response headers that tell browsers to restrict what a page may do. The server adds them to
/// every response that does not set the same header itself (see
/// `HTTPServer.Configuration.defaultHeaders`).
///
/// The defaults suit an app that loads only its own scripts, styles and images, is never framed,
/// and never leaks its URLs (which may carry ids) to other sites.
public struct SecurityHeaders: Sendable, Equatable {
    public var contentSecurityPolicy: String? =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
        + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    /// Stops browsers from guessing a type other than `Content-Type` (a JSON error as HTML, say).
    public var contentTypeOptions: String? = "nosniff"
    public var referrerPolicy: String? = "no-referrer"
    /// Frame denial for browsers that predate `frame-ancestors`.
    public var frameOptions: String? = "DENY"
    public var crossOriginOpenerPolicy: String? = "same-origin"
    public var crossOriginResourcePolicy: String? = "same-origin"

    public init() {}

    /// The headers that are set, in a stable order.
    public var headers: HTTPHeaders {
        var headers = HTTPHeaders()
        let pairs: [(String, String?)] = [
            ("Content-Security-Policy", self.contentSecurityPolicy),
            ("X-Content-Type-Options", self.contentTypeOptions),
            ("Referrer-Policy", self.referrerPolicy),
            ("X-Frame-Options", self.frameOptions),
            ("Cross-Origin-Opener-Policy", self.crossOriginOpenerPolicy),
            ("Cross-Origin-Resource-Policy", self.crossOriginResourcePolicy),
        ]
        for (name, value) in pairs {
            if let value { headers.add(name: name, value: value) }
        }
        return headers
    }
}
