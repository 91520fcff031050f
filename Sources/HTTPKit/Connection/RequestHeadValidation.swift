import NIOHTTP1

/// Checks on a decoded request head that NIO's parser leaves to the server, all about message
/// framing: a request whose length two parties could read differently is refused (`400`) and
/// the connection closed, because what follows it on the connection cannot be trusted.
enum RequestHeadValidation {
    /// Returns the declared body length, when there is one.
    static func validate(_ head: HTTPRequestHead) throws(HTTPError) -> Int? {
        guard head.version.major == 1 else {
            throw HTTPError(.httpVersionNotSupported, code: "bad_version", message: "Only HTTP/1.x is served.")
        }
        // Most requests (every GET) carry neither header: two lookups, where taking each header's list apart
        // made two arrays a request.
        guard head.headers.contains(name: "content-length") || head.headers.contains(name: "transfer-encoding") else {
            return nil
        }
        let lengths = head.headers[canonicalForm: "content-length"]
        let encodings = head.headers[canonicalForm: "transfer-encoding"]
        if !encodings.isEmpty {
            // RFC 9112 section 6.1: both is a smuggling attempt; HTTP/1.0 has no chunking; and
            // chunked must be the only (final) coding of a request.
            guard lengths.isEmpty else { throw framing("Content-Length and Transfer-Encoding together.") }
            guard head.version.minor >= 1 else { throw framing("Transfer-Encoding in an HTTP/1.0 request.") }
            guard encodings.count == 1, encodings[0].lowercased() == "chunked" else {
                throw framing("Only the chunked transfer coding is accepted.")
            }
        }
        guard !lengths.isEmpty else { return nil }
        // Two Content-Length values (even equal ones, as two fields or a list) are refused.
        guard lengths.count == 1, let length = Int(lengths[0]), length >= 0,
            lengths[0].utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { throw framing("Content-Length must be one decimal number.") }
        return length
    }

    private static func framing(_ message: String) -> HTTPError {
        HTTPError.badRequest(message, code: "bad_framing")
    }
}
