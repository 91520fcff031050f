/// An error that knows its HTTP answer. A handler or middleware throws its own error types; the
/// responder asks each for its response, so routes need no `do`/`catch` to translate them. Any other
/// error becomes `500 internal_error`, without its description (it might carry data).
public protocol HTTPResponseError: Error {
    /// The answer to send for this error.
    var response: Response { get }
}

extension HTTPError: HTTPResponseError {}
