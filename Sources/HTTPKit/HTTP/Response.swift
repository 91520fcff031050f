/// An HTTP response: a value that handlers return and the server writes.
///
/// The server owns framing: it sets `Content-Length` from the body (any value set here is
/// replaced), `Connection`, and `Date`, and adds the configured default headers that the
/// response does not set itself.
public struct Response: Sendable {
    public var status: HTTPResponseStatus
    /// A change drops the prepared bytes the response was made with: it is then checked and written as any other.
    public var headers: HTTPHeaders {
        didSet { self.prepared = nil }
    }
    public var body: ResponseBody
    /// The headers as bytes, while `headers` are those they were made from (`PreparedHeaders`).
    private(set) var prepared: PreparedHeaders?

    public init(status: HTTPResponseStatus = .ok, headers: HTTPHeaders = [:], body: ResponseBody = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
        self.prepared = nil
    }

    /// A response whose own headers were prepared once (`PreparedHeaders`); they go down as their bytes.
    public init(status: HTTPResponseStatus = .ok, headers: PreparedHeaders, body: ResponseBody = .empty) {
        self.status = status
        self.headers = headers.headers
        self.body = body
        self.prepared = headers.isPrepared ? headers : nil
    }
}

extension Response {
    /// A response with a UTF-8 JSON text body (`application/json; charset=utf-8`).
    public static func json(_ text: String, status: HTTPResponseStatus = .ok) -> Response {
        .json(ByteBuffer(string: text), status: status)
    }

    /// A response with an already encoded JSON body (`application/json; charset=utf-8`).
    public static func json(_ body: ByteBuffer, status: HTTPResponseStatus = .ok) -> Response {
        Response(
            status: status,
            headers: ["Content-Type": "application/json; charset=utf-8"],
            body: .bytes(body)
        )
    }

    /// A plain-text response.
    public static func text(
        _ text: String,
        status: HTTPResponseStatus = .ok,
        contentType: String = "text/plain; charset=utf-8"
    ) -> Response {
        Response(status: status, headers: ["Content-Type": contentType], body: .bytes(ByteBuffer(string: text)))
    }

    /// A redirect to `location` (`302 Found` unless told otherwise; `303 See Other` after a form post).
    public static func redirect(to location: String, status: HTTPResponseStatus = .found) -> Response {
        Response(status: status, headers: ["Location": location])
    }

    /// The JSON error response `{"error": {"code": …, "message": …}}`.
    public static func error(_ status: HTTPResponseStatus, code: String, message: String) -> Response {
        HTTPError(status, code: code, message: message).response
    }
}
