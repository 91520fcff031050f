@testable import HTTPKit
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

/// `ResponseEncoder` against NIO's `HTTPResponseEncoder`, which it replaces: the same bytes for the heads
/// `ResponseHeadBuilder` makes, with the default headers added, in fewer writes.
@Suite("Response encoder")
struct ResponseEncoderTests {
    /// What each encoder passes down to the socket for `parts`: one string per write.
    private static func writes(_ parts: [HTTPServerResponsePart], through handler: any ChannelHandler, promiseAtEnd: Bool = false) throws -> [String] {
        let channel = EmbeddedChannel(handler: handler)
        defer { _ = try? channel.finish() }
        for part in parts {
            if case .end = part, promiseAtEnd {
                let written = channel.eventLoop.makePromise(of: Void.self)
                channel.write(part, promise: written)
                channel.flush()
                #expect(throws: Never.self) { try written.futureResult.wait() }
            } else {
                channel.write(part, promise: nil)
            }
        }
        channel.flush()
        var out: [String] = []
        while let data = try channel.readOutbound(as: IOData.self) {
            guard case .byteBuffer(let buffer) = data else {
                Issue.record("a file region was written")
                continue
            }
            out.append(String(buffer: buffer))
        }
        return out
    }

    private static func nio() -> HTTPResponseEncoder {
        var configuration = HTTPResponseEncoder.Configuration()
        configuration.automaticallySetFramingHeaders = false  // the builder frames, as for ResponseEncoder
        return HTTPResponseEncoder(configuration: configuration)
    }

    private static let defaults: HTTPHeaders = ["X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"]

    /// Ours, with the default headers to add.
    private static func ours() -> ResponseEncoder {
        ResponseEncoder(defaultHeaders: DefaultHeaders(Self.defaults))
    }

    /// The parts as NIO's encoder must see them to write what ours does: each final head with the defaults
    /// after its own headers.
    private static func withDefaults(_ parts: [HTTPServerResponsePart]) -> [HTTPServerResponsePart] {
        parts.map { part in
            guard case .head(var head) = part, head.status.code >= 200 else { return part }
            head.headers.add(contentsOf: Self.defaults)
            return .head(head)
        }
    }

    private static func head(_ response: Response, version: HTTPVersion = .http1_1, keepAlive: Bool = true, answersHEAD: Bool = false) -> HTTPResponseHead {
        ResponseHeadBuilder.head(for: response, version: version, keepAlive: keepAlive, date: "Fri, 27 Nov 2026 03:00:00 GMT",
                                 answersHEAD: answersHEAD)
    }

    @Test("a small answer: the bytes NIO's encoder writes, in one write with the end")
    func smallAnswer() throws {
        let body = ByteBuffer(string: #"{"a":1}"#)
        let head = Self.head(Response(status: .ok, headers: ["Content-Type": "application/json"], body: .bytes(body)))
        let parts: [HTTPServerResponsePart] = [.head(head), .body(.byteBuffer(body)), .end(nil)]
        let ours = try Self.writes(parts, through: Self.ours())
        let theirs = try Self.writes(Self.withDefaults(parts), through: Self.nio())
        #expect(ours.count == 1)
        #expect(ours.joined() == theirs.joined())
        #expect(ours.joined().hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"))
        #expect(ours.joined().hasSuffix("Content-Length: 7\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n\r\n{\"a\":1}"))
    }

    @Test("a promise on the end completes once the one write is done", arguments: [true, false])
    func promiseAtEnd(withBody: Bool) throws {
        let body = ByteBuffer(string: withBody ? "abc" : "")
        let head = Self.head(Response(status: withBody ? .ok : .noContent, body: withBody ? .bytes(body) : .empty))
        var parts: [HTTPServerResponsePart] = [.head(head)]
        if withBody { parts.append(.body(.byteBuffer(body))) }
        parts.append(.end(nil))
        let ours = try Self.writes(parts, through: Self.ours(), promiseAtEnd: true)
        #expect(ours.count == 1)
        #expect(ours.joined() == (try Self.writes(Self.withDefaults(parts), through: Self.nio())).joined())
    }

    @Test("a body of the coalescing limit joins its head; one byte more is written on its own", arguments: [0, 1])
    func coalescingLimit(over: Int) throws {
        let body = ByteBuffer(repeating: UInt8(ascii: "x"), count: ResponseEncoder.coalescedBodyBytes + over)
        let head = Self.head(Response(status: .ok, body: .bytes(body)))
        let parts: [HTTPServerResponsePart] = [.head(head), .body(.byteBuffer(body)), .end(nil)]
        let ours = try Self.writes(parts, through: Self.ours())
        #expect(ours.count == (over == 0 ? 1 : 2))
        #expect(ours.joined() == (try Self.writes(Self.withDefaults(parts), through: Self.nio())).joined())
    }

    @Test("a stream to HTTP/1.1 is chunked as NIO chunks it, and the last chunk ends it")
    func chunked() throws {
        let stream = Response(status: .ok, body: .stream(ResponseStream(next: { nil })))
        let head = Self.head(stream)
        #expect(head.headers["Transfer-Encoding"] == ["chunked"])
        let parts: [HTTPServerResponsePart] = [
            .head(head), .body(.byteBuffer(ByteBuffer(string: "hello"))), .body(.byteBuffer(ByteBuffer())),
            .body(.byteBuffer(ByteBuffer(repeating: 0x41, count: 300))), .end(nil),
        ]
        let ours = try Self.writes(parts, through: Self.ours()).joined()
        #expect(ours == (try Self.writes(Self.withDefaults(parts), through: Self.nio())).joined())
        #expect(ours.contains("\r\n\r\n5\r\nhello\r\n12c\r\nAAA"))
        #expect(ours.hasSuffix("A\r\n0\r\n\r\n"))
    }

    @Test("framing headers are found in any case, and a header of their names' length is not taken for one")
    func framingNamesByLength() throws {
        let body = ByteBuffer(string: "hello")
        // Hand-made heads, as a handler or a test could write them: the encoder frames by what they say.
        let lowercase = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["transfer-encoding": "Chunked"])
        let chunkedOut = try Self.writes([.head(lowercase), .body(.byteBuffer(body)), .end(nil)], through: Self.ours()).joined()
        #expect(chunkedOut.hasSuffix("\r\n\r\n5\r\nhello\r\n0\r\n\r\n"))
        // 17 and 14 bytes long, as Transfer-Encoding and Content-Length are: neither frames the body.
        let lookalikes = HTTPResponseHead(version: .http1_1, status: .ok,
                                          headers: ["X-Transfer-Coding": "chunked", "Content-Langua": "5", "CONTENT-LENGTH": "5"])
        let plainOut = try Self.writes([.head(lookalikes), .body(.byteBuffer(body)), .end(nil)], through: Self.ours())
        #expect(plainOut.count == 1, "a small body with a Content-Length goes down with its head")
        #expect(plainOut.joined().hasSuffix("CONTENT-LENGTH: 5\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n\r\nhello"))
    }

    @Test("trailers after the last chunk")
    func trailers() throws {
        let head = Self.head(Response(status: .ok, body: .stream(ResponseStream(next: { nil }))))
        let parts: [HTTPServerResponsePart] = [.head(head), .body(.byteBuffer(ByteBuffer(string: "ab"))), .end(["X-Sum": "1"])]
        let ours = try Self.writes(parts, through: Self.ours()).joined()
        #expect(ours == (try Self.writes(Self.withDefaults(parts), through: Self.nio())).joined())
        #expect(ours.hasSuffix("2\r\nab\r\n0\r\nX-Sum: 1\r\n\r\n"))
    }

    @Test("a HEAD answer to a stream announces no chunks, and its end writes nothing")
    func headOfStream() throws {
        let head = Self.head(Response(status: .ok, body: .stream(ResponseStream(next: { nil }))), answersHEAD: true)
        #expect(head.headers["Transfer-Encoding"].isEmpty)
        let ours = try Self.writes([.head(head), .end(nil)], through: Self.ours())
        #expect(ours.count == 1)
        #expect(ours[0].hasSuffix("\r\n\r\n"))
        #expect(!ours[0].contains("0\r\n\r\n0"))
    }

    @Test("HTTP/1.0 without a length: no chunks; an interim 100 Continue leaves the next head's framing alone")
    func http10AndInterim() throws {
        let stream = Self.head(Response(status: .ok, body: .stream(ResponseStream(next: { nil }))), version: .http1_0, keepAlive: false)
        let parts: [HTTPServerResponsePart] = [.head(stream), .body(.byteBuffer(ByteBuffer(string: "raw"))), .end(nil)]
        let ours = try Self.writes(parts, through: Self.ours()).joined()
        #expect(ours.hasPrefix("HTTP/1.0 200 OK\r\n"))
        #expect(ours.hasSuffix("\r\n\r\nraw"))

        let chunkedHead = Self.head(Response(status: .ok, body: .stream(ResponseStream(next: { nil }))))
        let interim: [HTTPServerResponsePart] = [
            .head(chunkedHead), .head(HTTPResponseHead(version: .http1_1, status: .continue)),
            .body(.byteBuffer(ByteBuffer(string: "x"))), .end(nil),
        ]
        let text = try Self.writes(interim, through: Self.ours()).joined()
        #expect(text.contains("HTTP/1.1 100 Continue\r\n\r\n1\r\nx\r\n0\r\n\r\n"))
    }

    @Test("a flush sends a held head at once (a file body's head goes before the file)")
    func flushSendsHeld() throws {
        let channel = EmbeddedChannel(handler: Self.ours())
        defer { _ = try? channel.finish() }
        let head = Self.head(Response(status: .ok, headers: ["Content-Length": "10"], body: .bytes(ByteBuffer(string: "0123456789"))))
        channel.write(HTTPServerResponsePart.head(head), promise: nil)
        #expect(try channel.readOutbound(as: IOData.self) == nil)  // held
        channel.flush()
        let first = try channel.readOutbound(as: IOData.self)
        guard case .byteBuffer(let buffer) = first else {
            Issue.record("nothing written on flush")
            return
        }
        #expect(String(buffer: buffer).contains("Content-Length: 10\r\n"))
        #expect(String(buffer: buffer).hasSuffix("\r\n\r\n"))
    }
}
