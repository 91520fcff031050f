import NIOCore
import NIOHTTP1

/// A response's own headers checked and written as bytes once, for answers that repeat them: every JSON answer
/// of the API sends the same `Content-Type` and `Cache-Control`. A response made with them
/// (`Response(status:headers:body:)` with `PreparedHeaders`) skips the connection's check of each header and
/// their serialization, which a cached page paid on every request (issue 41, `docs/perf/README.md`); its head
/// on the wire is the same.
///
/// Headers that cannot be prepared (a name that is not a token, a value with CR, LF or NUL, or a framing
/// header or `Date`, which the server writes itself) are kept as they are, and a response made with them
/// goes the usual way: checked, refused with a `500` if invalid, its framing replaced.
public final class PreparedHeaders: Sendable {
    /// The headers, as `Response.headers` shows them.
    public let headers: HTTPHeaders
    /// Each header as `name: value` and CRLF, in order; `nil` when they could not be prepared.
    let bytes: ByteBuffer?
    /// Bit n set when a header's name is n bytes long (`ResponseHeadBuilder.lengthBit`): none of the server's
    /// default headers can be among them when no default's name has one of these lengths.
    let nameLengths: UInt64

    /// Why headers cannot be prepared.
    enum Problem: Equatable {
        /// A name is not a token, or a value holds CR, LF or NUL (`ResponseHeadBuilder.isValid`).
        case unsendable
        /// The server writes this one itself: a framing header or `Date`.
        case writtenByServer(String)
    }

    /// Why `headers` cannot be prepared, or `nil` when they can.
    static func problem(with headers: HTTPHeaders) -> Problem? {
        guard ResponseHeadBuilder.isValid(headers) else { return .unsendable }
        for (name, _) in headers where ResponseHeadBuilder.isReserved(name) {
            return .writtenByServer(name)
        }
        return nil
    }

    public init(_ headers: HTTPHeaders) {
        self.headers = headers
        self.nameLengths = headers.reduce(0) { $0 | ResponseHeadBuilder.lengthBit($1.name) }
        guard Self.problem(with: headers) == nil else {
            self.bytes = nil
            return
        }
        var bytes = ByteBuffer()
        ResponseEncoder.write(headers, into: &bytes)
        self.bytes = bytes
    }

    /// Whether the connection can write the bytes as they are.
    public var isPrepared: Bool { self.bytes != nil }
}
