import NIOCore
import NIOHTTP1

/// The server's default headers (`HTTPServer.Configuration.defaultHeaders`: the security headers), which
/// `ResponseEncoder` writes into every final head that does not set them itself.
///
/// Every answer repeats them, so their bytes are made once, with the server: a head that sets none of them
/// (nearly all) gets them as one copied block. Added to each head and serialized with it, they cost a
/// `page=year` request about 4,000 instructions (issue 41, `docs/perf/README.md`).
struct DefaultHeaders: Sendable {
    let headers: HTTPHeaders
    /// Each header as `name: value` and CRLF, in order (`ResponseEncoder.write(_:into:)`).
    let bytes: ByteBuffer
    /// Bit n set when a default's name is n bytes long (`ResponseHeadBuilder.lengthBit`): a head's header of
    /// any other length cannot be one of them.
    private let nameLengths: UInt64

    /// Why a set of headers cannot be the defaults, or `nil` when it can: each must be valid
    /// (`ResponseHeadBuilder.isValid`), and none may be one the server writes itself (framing, `Date`).
    static func problem(with headers: HTTPHeaders) -> String? {
        guard ResponseHeadBuilder.isValid(headers) else {
            return "a default header's name is not a token, or its value holds CR, LF or NUL"
        }
        for (name, _) in headers where ResponseHeadBuilder.isReserved(name) {
            return "the server writes \(name) itself; it cannot be a default header"
        }
        return nil
    }

    /// `headers`, which `problem(with:)` has passed; the server checks that before it starts.
    init(_ headers: HTTPHeaders) {
        self.headers = headers
        var bytes = ByteBuffer()
        ResponseEncoder.write(headers, into: &bytes)
        self.bytes = bytes
        self.nameLengths = headers.reduce(0) { $0 | ResponseHeadBuilder.lengthBit($1.name) }
    }

    static let none = DefaultHeaders([:])

    /// Whether `head` sets none of the defaults, so that all of them follow it as one block. One pass over the
    /// head's few headers, most of them passed on their length alone.
    func noneSet(by head: HTTPHeaders) -> Bool {
        guard self.nameLengths != 0 else { return true }
        for (name, _) in head where self.nameLengths & ResponseHeadBuilder.lengthBit(name) != 0 {
            if self.headers.contains(name: name) { return false }
        }
        return true
    }

    /// Whether prepared own headers set none of the defaults: at once when none of their names has a default's
    /// length (the API's JSON answers: `Content-Type`, `Cache-Control`).
    func noneSet(by own: PreparedHeaders) -> Bool {
        self.nameLengths & own.nameLengths == 0 || self.noneSet(by: own.headers)
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
