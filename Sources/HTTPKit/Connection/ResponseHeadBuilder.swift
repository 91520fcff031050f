#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOHTTP1

/// Builds the head that goes on the wire for a `Response`: the server, not the handler, owns
/// framing (`Content-Length`, or `Transfer-Encoding: chunked` for a stream; `Connection`), adds `Date`, and
/// refuses header names or values that would break the response. The server's default headers are not
/// added here: `ResponseEncoder` writes them, serialized once (`DefaultHeaders`).
enum ResponseHeadBuilder {
    /// Bit n set when a framing header's name or `Date` is n bytes long: a response's own header of another
    /// length cannot be one of them, and is passed without comparing names.
    private static let reservedNameLengths = (framingHeaders + ["date"]).reduce(UInt64(0)) { $0 | lengthBit($1) }

    /// A name's bit in a set of name lengths: its length's, the last for 63 bytes and longer.
    static func lengthBit(_ name: String) -> UInt64 {
        1 << UInt64(min(name.utf8.count, 63))
    }

    /// Whether a response's own headers leave the framing and `Date` to the builder. One pass over the
    /// response's few headers, most of them passed on their length alone.
    private static func leavesHeadToBuilder(_ own: HTTPHeaders) -> Bool {
        for (name, _) in own where Self.reservedNameLengths & Self.lengthBit(name) != 0 {
            if Self.isReserved(name) { return false }
        }
        return true
    }

    /// Whether `name` is a framing header's or `Date`: the builder writes those itself.
    static func isReserved(_ name: String) -> Bool {
        Self.framingHeaders.contains(where: { Self.sameName(name, $0) }) || Self.sameName(name, "date")
    }

    /// Header names compare case-insensitively (ASCII); `lowercased` is given in lower case.
    /// Inlined: most names compared differ in length, and that test costs less than the call (a head's
    /// serialisation compares each of its names with two).
    @inline(__always)
    static func sameName(_ name: String, _ lowercased: String) -> Bool {
        name.utf8.count == lowercased.utf8.count && sameLetters(name, lowercased)
    }

    /// `sameName` for two names of one length, over the bytes as stored: the UTF-8 view's iterator cost about
    /// 25 instructions a byte.
    private static func sameLetters(_ name: String, _ lowercased: String) -> Bool {
        var name = name
        var lowercased = lowercased
        return name.withUTF8 { letters in
            lowercased.withUTF8 { expected in
                for index in letters.indices where letters[index] != expected[index] && letters[index] | 0x20 != expected[index] {
                    return false
                }
                return true
            }
        }
    }

    static let framingHeaders = ["content-length", "transfer-encoding", "connection", "keep-alive"]

    /// Whether the client understands `Transfer-Encoding: chunked` (HTTP/1.1 and later).
    static func allowsChunked(_ version: HTTPVersion) -> Bool {
        version.major > 1 || (version.major == 1 && version.minor >= 1)
    }

    /// Whether the connection can stay open after `body`: a body of unknown length to an HTTP/1.0
    /// client is delimited by closing it.
    static func keepsAlive(after body: ResponseBody, version: HTTPVersion) -> Bool {
        body.count != nil || allowsChunked(version)
    }

    /// Whether a response with this status carries no body at all (RFC 9110 section 6.4.1).
    static func forbidsBody(_ status: HTTPResponseStatus) -> Bool {
        status.code < 200 || status.code == 204 || status.code == 304
    }

    static func head(for response: Response, version: HTTPVersion, keepAlive: Bool, now: Int = Int(time(nil))) -> HTTPResponseHead {
        Self.head(for: response, version: version, keepAlive: keepAlive, date: HTTPDate.format(epochSeconds: now))
    }

    /// - Parameters:
    ///   - date: the `Date` value (callers cache it: it changes once a second).
    ///   - answersHEAD: the request was `HEAD`: no body follows, so a stream's answer announces no chunks
    ///     (RFC 9110 section 9.3.2 lets a HEAD answer leave out what only generating the content decides),
    ///     while a known `Content-Length` is still sent.
    ///
    /// A response with prepared headers (`PreparedHeaders`) gets a head of the builder's headers alone: its own go
    /// to `ResponseEncoder` apart (`HTTPConnectionHandler` hands them over), as bytes written before these.
    static func head(for response: Response, version: HTTPVersion, keepAlive: Bool, date: String, answersHEAD: Bool = false) -> HTTPResponseHead {
        // The head's headers as pairs, made into `HTTPHeaders` once: its `add` checks every name for ASCII
        // and for `Connection`, which the names added here need not be.
        var headers: [(String, String)] = []
        if response.prepared != nil {
            // Prepared headers were checked when made: none is a framing header or `Date`.
            headers.reserveCapacity(3)
            headers.append(("Date", date))
        } else if Self.leavesHeadToBuilder(response.headers) {
            headers.reserveCapacity(response.headers.count + 3)
            for header in response.headers { headers.append(header) }
            headers.append(("Date", date))
        } else {
            headers.reserveCapacity(response.headers.count + 3)
            for (name, value) in response.headers where !Self.framingHeaders.contains(where: { Self.sameName(name, $0) }) {
                headers.append((name, value))
            }
            if !response.headers.contains(name: "date") {
                headers.append(("Date", date))
            }
        }
        if !Self.forbidsBody(response.status) {
            if let count = response.body.count {
                headers.append(("Content-Length", String(count)))
            } else if Self.allowsChunked(version) && !answersHEAD {
                headers.append(("Transfer-Encoding", "chunked"))
            }
            // A stream to an HTTP/1.0 client ends when the connection does (`keepsAlive` says no).
        }
        if !keepAlive {
            headers.append(("Connection", "close"))
        } else if version.major == 1 && version.minor == 0 {
            headers.append(("Connection", "keep-alive"))
        }
        return HTTPResponseHead(version: version.major == 1 ? version : .http1_1, status: response.status, headers: HTTPHeaders(headers))
    }

    /// Whether every header can be sent: a token name, and a value without CR, LF or NUL (which
    /// would let a value start a new header or end the head).
    static func isValid(_ headers: HTTPHeaders) -> Bool {
        let tokenBytes = Self.tokenBytes
        for (name, value) in headers {
            var name = name
            var value = value
            // Over each string's bytes as they are stored (a response's own headers are checked on every answer),
            // a name's against a table, a value's with one comparison for any byte above CR.
            let nameIsToken = name.withUTF8 { bytes in !bytes.isEmpty && bytes.allSatisfy { tokenBytes.contains($0) } }
            let valueIsSafe = value.withUTF8 { bytes in !bytes.contains { $0 <= 0x0D && ($0 == 0x0D || $0 == 0x0A || $0 == 0x00) } }
            guard nameIsToken, valueIsSafe else { return false }
        }
        return true
    }

    /// The bytes of a token (RFC 9110 section 5.6.2), one bit each.
    private static let tokenBytes = ByteSet("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
}
