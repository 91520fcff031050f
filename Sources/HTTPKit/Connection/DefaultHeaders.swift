import NIOCore
import NIOHTTP1

/// The server's default headers (`HTTPServer.Configuration.defaultHeaders`: the security headers), which
/// `ResponseEncoder` writes into every final head that does not set them itself.
///
/// Every answer repeats them, so their bytes are made once, with the server: a head that sets none of them
/// (nearly all) gets them as one copied block. Added to each head and serialized with it, they cost a
/// `page=year` request about 4,000 instructions (issue 41, `docs/perf/README.md`).
///
/// They are prepared as a response's own headers can be (`PreparedHeaders`): the same checks, the same bytes.
struct DefaultHeaders: Sendable {
    /// The headers, their bytes and their names' lengths (`PreparedHeaders.nameLengths`: a head's header of any
    /// other length cannot be one of them).
    private let prepared: PreparedHeaders
    /// Each header as `name: value` and CRLF, in order.
    let bytes: ByteBuffer

    var headers: HTTPHeaders { self.prepared.headers }

    /// Why a set of headers cannot be the defaults, or `nil` when it can: those that cannot be prepared
    /// (`PreparedHeaders.problem(with:)`).
    static func problem(with headers: HTTPHeaders) -> String? {
        switch PreparedHeaders.problem(with: headers) {
        case nil:
            return nil
        case .unsendable:
            return "a default header's name is not a token, or its value holds CR, LF or NUL"
        case .writtenByServer(let name):
            return "the server writes \(name) itself; it cannot be a default header"
        }
    }

    /// `headers`, which `problem(with:)` has passed; the server checks that before it starts (and has no
    /// defaults until then).
    init(_ headers: HTTPHeaders) {
        self.prepared = PreparedHeaders(headers)
        self.bytes = self.prepared.bytes ?? ByteBuffer()
    }

    static let none = DefaultHeaders([:])

    /// Whether `head` sets none of the defaults, so that all of them follow it as one block. One pass over the
    /// head's few headers, most of them passed on their length alone.
    func noneSet(by head: HTTPHeaders) -> Bool {
        guard self.prepared.nameLengths != 0 else { return true }
        for (name, _) in head where self.prepared.nameLengths & ResponseHeadBuilder.lengthBit(name) != 0 {
            if self.headers.contains(name: name) { return false }
        }
        return true
    }

    /// Whether prepared own headers set none of the defaults: at once when none of their names has a default's
    /// length (the API's JSON answers: `Content-Type`, `Cache-Control`).
    func noneSet(by own: PreparedHeaders) -> Bool {
        self.prepared.nameLengths & own.nameLengths == 0 || self.noneSet(by: own.headers)
    }

    /// The defaults that `head` (and a response's prepared `own` headers) do not set, for a head that sets some.
    func unset(by head: HTTPHeaders, own: HTTPHeaders? = nil) -> HTTPHeaders {
        var unset = HTTPHeaders()
        for (name, value) in self.headers where !head.contains(name: name) && !(own?.contains(name: name) ?? false) {
            unset.add(name: name, value: value)
        }
        return unset
    }
}
