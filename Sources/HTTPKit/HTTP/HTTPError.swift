/// An error that becomes an HTTP answer: a status and the JSON body
/// `{"error": {"code": "…", "message": "…"}}`.
///
/// Handlers and middleware throw it; the server turns it into a response. Any other error
/// thrown by a handler becomes `500 internal_error`, without its description, which might
/// carry data that the client should not see.
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: HTTPResponseStatus
    /// A stable, machine-readable word (`not_found`, `bad_origin`).
    public var code: String
    /// A sentence for people. Never put secrets or unescaped client input here.
    public var message: String
    /// Extra headers for the answer (`Allow`, `WWW-Authenticate`).
    public var headers: HTTPHeaders

    public init(_ status: HTTPResponseStatus, code: String, message: String, headers: HTTPHeaders = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// The JSON error response.
    public var response: Response {
        var response = Response.json(
            #"{"error":{"code":"# + JSONString.quoted(self.code) + #","message":"#
                + JSONString.quoted(self.message) + "}}",
            status: self.status
        )
        response.headers.add(contentsOf: self.headers)
        return response
    }

    public var description: String {
        "HTTPError(\(self.status.code) \(self.code): \(self.message))"
    }
}

extension HTTPError {
    public static func badRequest(_ message: String, code: String = "bad_request") -> HTTPError {
        HTTPError(.badRequest, code: code, message: message)
    }

    public static let notFound = HTTPError(.notFound, code: "not_found", message: "There is nothing at this address.")

    public static func methodNotAllowed(allow: [HTTPMethod]) -> HTTPError {
        HTTPError(
            .methodNotAllowed,
            code: "method_not_allowed",
            message: "This address does not accept that method.",
            headers: ["Allow": allow.map(\.rawValue).joined(separator: ", ")]
        )
    }

    public static let payloadTooLarge = HTTPError(
        .payloadTooLarge, code: "body_too_large", message: "The request body is larger than this address accepts.")

    public static let headersTooLarge = HTTPError(
        .requestHeaderFieldsTooLarge, code: "headers_too_large", message: "The request head is too large.")

    public static let internalServerError = HTTPError(
        .internalServerError, code: "internal_error", message: "The server failed to answer this request.")

    public static let serviceUnavailable = HTTPError(
        .serviceUnavailable, code: "unavailable", message: "The server is busy or shutting down; try again.")
}
