/// An HTTP request, complete with its body, as handlers and middleware see it.
public struct Request: Sendable {
    public var method: HTTPMethod
    /// The path as sent, still percent-encoded, without the query (`/patients/p%201/export.json`).
    /// Safe to log.
    public var path: String
    /// The path split at `/` and percent-decoded; `/a/b/` is `["a", "b", ""]`. Never contains
    /// `.` or `..` (such requests are refused before routing), but a segment may contain a `/`
    /// that was sent as `%2F`.
    public var pathSegments: [String]
    /// The decoded query items.
    public var query: Query
    /// The raw query string, without `?`. It may carry secrets: never log it.
    public var rawQuery: String?
    public var headers: HTTPHeaders
    public var version: HTTPVersion
    /// The whole body, at most the route's body limit.
    public var body: ByteBuffer

    public init(
        method: HTTPMethod,
        path: String,
        pathSegments: [String],
        query: Query = Query(),
        rawQuery: String? = nil,
        headers: HTTPHeaders = [:],
        version: HTTPVersion = .http1_1,
        body: ByteBuffer = ByteBuffer()
    ) {
        self.method = method
        self.path = path
        self.pathSegments = pathSegments
        self.query = query
        self.rawQuery = rawQuery
        self.headers = headers
        self.version = version
        self.body = body
    }

    /// The body as UTF-8 text, or `nil` when it is not valid UTF-8.
    public var bodyText: String? {
        String(validating: self.body.readableBytesView, as: UTF8.self)
    }
}
