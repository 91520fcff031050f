@testable import HTTPKit
import NIOCore
import NIOHTTP1
import Testing

@Suite("HTTP dates, JSON strings, error bodies")
struct FormattingTests {
    @Test("HTTP dates format as IMF-fixdate and parse back", arguments: [
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (-86_400, "Wed, 31 Dec 1969 00:00:00 GMT"),
        (4_102_444_799, "Thu, 31 Dec 2099 23:59:59 GMT"),
    ])
    func dates(seconds: Int, text: String) {
        #expect(HTTPDate.format(epochSeconds: seconds) == text)
        #expect(HTTPDate.parse(text) == seconds)
    }

    @Test("other date forms are not parsed", arguments: [
        "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "", "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 32 Nov 1994 08:49:37 GMT",
    ])
    func badDates(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test("JSON strings escape quotes, control characters and HTML-significant characters")
    func jsonQuoting() {
        #expect(JSONString.quoted("a\"b\\c\n\u{01}<>&") == #""a\"b\\c\n\u0001\u003c\u003e\u0026""#)
        #expect(JSONString.quoted("café") == "\"café\"")
    }

    @Test("an HTTPError becomes the JSON error body with its status and headers")
    func errorBody() {
        let response = HTTPError.methodNotAllowed(allow: [.GET, .HEAD]).response
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers.first(name: "Allow") == "GET, HEAD")
        #expect(response.headers.first(name: "Content-Type") == "application/json; charset=utf-8")
        guard case .bytes(let body) = response.body else {
            Issue.record("no body")
            return
        }
        #expect(String(buffer: body) == #"{"error":{"code":"method_not_allowed","message":"This address does not accept that method."}}"#)
    }

    /// The head's bytes as `ResponseEncoder` writes them with `defaults`: one `name: value` a line.
    private static func lines(_ head: HTTPResponseHead, defaults: HTTPHeaders) -> [String] {
        let (bytes, _) = ResponseEncoder.serialize(head, defaults: DefaultHeaders(defaults), allocator: ByteBufferAllocator())
        return Array(String(buffer: bytes).split(separator: "\r\n").dropFirst().map(String.init))
    }

    @Test("a response's own header overrides a default of its name in any case; a name of the same length does not")
    func ownHeadersByName() {
        let defaults: HTTPHeaders = ["X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"]
        let response = Response(status: .ok, headers: ["X-Frame-Optionz": "a", "x-frame-options": "SAMEORIGIN"], body: .empty)
        let own = Self.lines(ResponseHeadBuilder.head(for: response, version: .http1_1, keepAlive: true, now: 0), defaults: defaults)
        #expect(own == ["X-Frame-Optionz: a", "x-frame-options: SAMEORIGIN", "Date: Thu, 01 Jan 1970 00:00:00 GMT", "Content-Length: 0",
                        "Referrer-Policy: no-referrer"])
        let plain = ResponseHeadBuilder.head(for: Response(status: .ok, headers: ["Content-Type": "text/plain"], body: .empty),
                                             version: .http1_1, keepAlive: true, now: 0)
        #expect(Self.lines(plain, defaults: defaults).map { $0.split(separator: ":")[0] }
                == ["Content-Type", "Date", "Content-Length", "X-Frame-Options", "Referrer-Policy"])
        let dated = ResponseHeadBuilder.head(for: Response(status: .ok, headers: ["DATE": "then"], body: .empty), version: .http1_1,
                                             keepAlive: true, now: 0)
        #expect(dated.headers["Date"] == ["then"])
    }

    @Test("an interim answer carries no default headers; one that sets every default gets none added")
    func interimAndAllSet() {
        let defaults: HTTPHeaders = ["X-Default": "1"]
        #expect(Self.lines(HTTPResponseHead(version: .http1_1, status: .continue), defaults: defaults).isEmpty)
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["x-default": "mine"])
        #expect(Self.lines(head, defaults: defaults) == ["x-default: mine"])
    }

    @Test("default headers the server cannot send, or that name what it writes itself, are refused")
    func defaultHeaderProblems() {
        #expect(DefaultHeaders.problem(with: SecurityHeaders().headers) == nil)
        #expect(DefaultHeaders.problem(with: [:]) == nil)
        #expect(DefaultHeaders.problem(with: ["X-Bad": "a\r\nSet-Cookie: x=1"]) != nil)
        #expect(DefaultHeaders.problem(with: ["Bad Name": "1"]) != nil)
        #expect(DefaultHeaders.problem(with: ["content-length": "0"]) == "the server writes content-length itself; it cannot be a default header")
        #expect(DefaultHeaders.problem(with: ["Date": "then"]) != nil)
    }

    @Test("header names compare in any ASCII case, byte for byte and length for length")
    func headerNames() {
        #expect(ResponseHeadBuilder.sameName("Content-Length", "content-length"))
        #expect(ResponseHeadBuilder.sameName("CONTENT-LENGTH", "content-length"))
        #expect(!ResponseHeadBuilder.sameName("Content-Lengths", "content-length"))
        #expect(!ResponseHeadBuilder.sameName("Content-Lengt", "content-length"))
        #expect(!ResponseHeadBuilder.sameName("Content_Length", "content-length"))
        #expect(!ResponseHeadBuilder.sameName("Content-Lenguh", "content-length"))
        #expect(ResponseHeadBuilder.sameName("", ""))
        // A name from a request's bytes, not a literal: the same answer.
        let read = String(decoding: Array("TRANSFER-Encoding".utf8), as: UTF8.self)
        #expect(ResponseHeadBuilder.sameName(read, "transfer-encoding"))
    }

    @Test("the server owns framing: handler-set Content-Length, Connection and Transfer-Encoding are replaced")
    func headFraming() {
        let response = Response(
            status: .ok,
            headers: ["Content-Length": "999", "Transfer-Encoding": "chunked", "Connection": "keep-alive", "X-Own": "mine"],
            body: .bytes(ByteBuffer(string: "abc"))
        )
        let head = ResponseHeadBuilder.head(for: response, version: .http1_1, keepAlive: false, now: 0)
        #expect(head.headers["Content-Length"] == ["3"])
        #expect(head.headers["Transfer-Encoding"].isEmpty)
        #expect(head.headers["Connection"] == ["close"])
        #expect(head.headers["X-Own"] == ["mine"])
        #expect(head.headers["Date"] == ["Thu, 01 Jan 1970 00:00:00 GMT"])
    }

    @Test("a head is the response's headers, Date and framing, in that order, then the defaults it does not set; one that sets any of them gets the same order without them")
    func headOrder() {
        let defaults: HTTPHeaders = ["X-Default": "1", "X-Other": "2"]
        let plain = Response(status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                             body: .bytes(ByteBuffer(string: "{}")))
        let lines = { (response: Response, keepAlive: Bool) in
            Self.lines(ResponseHeadBuilder.head(for: response, version: .http1_1, keepAlive: keepAlive, now: 0), defaults: defaults)
        }
        #expect(lines(plain, true) == ["Content-Type: application/json", "Cache-Control: no-store", "Date: Thu, 01 Jan 1970 00:00:00 GMT",
                                       "Content-Length: 2", "X-Default: 1", "X-Other: 2"])
        // A default's name in another case, its own Date, a framing header: each set aside as before.
        let own = Response(status: .ok, headers: ["Content-Type": "text/plain", "x-default": "mine", "Date": "then", "Content-Length": "9"],
                           body: .bytes(ByteBuffer(string: "{}")))
        #expect(lines(own, false) == ["Content-Type: text/plain", "x-default: mine", "Date: then", "Content-Length: 2", "Connection: close",
                                      "X-Other: 2"])
    }

    @Test("304 and 204 answers carry no Content-Length")
    func bodylessStatuses() {
        for status in [HTTPResponseStatus.notModified, .noContent] {
            let head = ResponseHeadBuilder.head(for: Response(status: status), version: .http1_1, keepAlive: true)
            #expect(head.headers["Content-Length"].isEmpty)
        }
    }
}
