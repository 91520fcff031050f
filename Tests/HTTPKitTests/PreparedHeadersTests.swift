@testable import HTTPKit
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

/// A response's own headers prepared once (`PreparedHeaders`): on the wire exactly as the same headers given
/// plainly, and only while they are the headers the response was made with.
@Suite("Prepared headers")
struct PreparedHeadersTests {
    private static let json: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"]

    @Test("valid headers are prepared; a name that is not a token, a value with CR or LF, framing or Date are not")
    func whatIsPrepared() {
        #expect(PreparedHeaders(Self.json).isPrepared)
        #expect(PreparedHeaders([:]).isPrepared)
        for headers: HTTPHeaders in [
            ["X-Bad": "a\r\nSet-Cookie: x=1"], ["X Bad": "a"], ["X-Nul": "a\u{0}b"],
            ["content-length": "3"], ["Transfer-Encoding": "chunked"], ["Connection": "close"], ["DATE": "today"],
        ] {
            let prepared = PreparedHeaders(headers)
            #expect(!prepared.isPrepared, "\(headers)")
            // A response made with them goes the usual way: checked, and its framing the server's.
            #expect(Response(status: .ok, headers: prepared).prepared == nil)
            #expect(Response(status: .ok, headers: prepared).headers == headers)
        }
    }

    @Test("a change of a prepared response's headers drops the prepared bytes")
    func changeDropsBytes() {
        var response = Response(status: .created, headers: PreparedHeaders(Self.json), body: .bytes(ByteBuffer(string: "{}")))
        #expect(response.prepared != nil)
        #expect(response.headers == Self.json)
        response.status = .ok
        response.body = .empty
        #expect(response.prepared != nil, "status and body are not headers")
        response.headers.replaceOrAdd(name: "Location", value: "/timeline/entries/t_1")
        #expect(response.prepared == nil)
        #expect(response.headers.first(name: "Location") == "/timeline/entries/t_1")
    }

    /// The bytes `ResponseEncoder` writes for `response`, handing its prepared headers over as the connection does.
    private static func wire(_ response: Response, defaults: HTTPHeaders, keepAlive: Bool = true, answersHEAD: Bool = false,
                             then next: Response? = nil) throws -> String {
        let encoder = ResponseEncoder(defaultHeaders: DefaultHeaders(defaults))
        let channel = EmbeddedChannel(handler: encoder)
        defer { _ = try? channel.finish() }
        for response in [response] + (next.map { [$0] } ?? []) {
            let head = ResponseHeadBuilder.head(for: response, version: .http1_1, keepAlive: keepAlive, date: "Fri, 27 Nov 2026 03:00:00 GMT",
                                                answersHEAD: answersHEAD)
            encoder.preparedHeaders = response.prepared
            channel.write(HTTPServerResponsePart.head(head), promise: nil)
            if !answersHEAD, case .bytes(let body) = response.body {
                channel.write(HTTPServerResponsePart.body(.byteBuffer(body)), promise: nil)
            }
            channel.write(HTTPServerResponsePart.end(nil), promise: nil)
        }
        channel.flush()
        var out = ""
        while let data = try channel.readOutbound(as: IOData.self) {
            guard case .byteBuffer(let buffer) = data else {
                Issue.record("a file region was written")
                continue
            }
            out += String(buffer: buffer)
        }
        return out
    }

    @Test("the same bytes as the headers given plainly: with defaults apart from them, overridden by them, with none, and for HEAD",
          arguments: [
              ["X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"],
              ["X-Content-Type-Options": "nosniff", "cache-control": "private"],
              [:],
          ] as [HTTPHeaders])
    func sameBytes(defaults: HTTPHeaders) throws {
        let body = ByteBuffer(string: #"{"entries":[]}"#)
        for (keepAlive, answersHEAD) in [(true, false), (false, false), (true, true)] {
            let prepared = try Self.wire(Response(status: .ok, headers: PreparedHeaders(Self.json), body: .bytes(body)), defaults: defaults,
                                         keepAlive: keepAlive, answersHEAD: answersHEAD)
            let plain = try Self.wire(Response(status: .ok, headers: Self.json, body: .bytes(body)), defaults: defaults,
                                      keepAlive: keepAlive, answersHEAD: answersHEAD)
            #expect(prepared == plain)
            #expect(prepared.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\nDate: "))
        }
        // A default of the same name as a prepared header is not sent twice.
        let overridden = try Self.wire(Response(status: .ok, headers: PreparedHeaders(Self.json), body: .bytes(body)), defaults: defaults)
        #expect(overridden.components(separatedBy: "ache-Control:").count == 2)
    }

    @Test("prepared headers go with their own head only, not with an interim or the next answer")
    func onlyTheirHead() throws {
        let first = Response(status: .ok, headers: PreparedHeaders(Self.json), body: .bytes(ByteBuffer(string: "1")))
        let second = Response(status: .noContent)
        let text = try Self.wire(first, defaults: [:], then: second)
        #expect(text.components(separatedBy: "Cache-Control: no-store").count == 2)
        #expect(text.contains("\r\n\r\n1HTTP/1.1 204 No Content\r\nDate: "))

        let (interim, _) = ResponseEncoder.serialize(HTTPResponseHead(version: .http1_1, status: .continue), own: PreparedHeaders(Self.json),
                                                     defaults: .none, allocator: ByteBufferAllocator())
        #expect(String(buffer: interim) == "HTTP/1.1 100 Continue\r\n\r\n")
    }

    @Test("through the server: a prepared answer's head is the plain one's, and a route's change of it is sent")
    func throughTheServer() async throws {
        var router = Router()
        let prepared = PreparedHeaders(Self.json)
        router.get("/prepared") { _, _ in Response(status: .ok, headers: prepared, body: .bytes(ByteBuffer(string: "{}"))) }
        router.get("/plain") { _, _ in Response(status: .ok, headers: Self.json, body: .bytes(ByteBuffer(string: "{}"))) }
        router.get("/changed") { _, _ in
            var response = Response(status: .ok, headers: prepared, body: .bytes(ByteBuffer(string: "{}")))
            response.headers.add(name: "Location", value: "/x")
            return response
        }
        router.get("/bad") { _, _ in Response(status: .ok, headers: PreparedHeaders(["X-Bad": "a\r\nb"]), body: .empty) }
        try await withServer(router: router) { server in
            let client = try await server.connect()
            defer { Task { await client.close() } }
            try await client.send("GET /prepared HTTP/1.1\r\nHost: a\r\n\r\nGET /plain HTTP/1.1\r\nHost: a\r\n\r\n"
                + "HEAD /prepared HTTP/1.1\r\nHost: a\r\n\r\nGET /changed HTTP/1.1\r\nHost: a\r\n\r\n")
            let answers = try await client.responses(2)
            let withoutDate = answers.map { $0.headers.filter { $0.name != "Date" }.map { "\($0.name): \($0.value)" } }
            #expect(withoutDate[0] == withoutDate[1])
            #expect(withoutDate[0].prefix(3) == ["Content-Type: application/json; charset=utf-8", "Cache-Control: no-store", "Content-Length: 2"])
            #expect(withoutDate[0].contains("X-Content-Type-Options: nosniff"))
            #expect(answers[0].bodyText == "{}")
            let head = try await client.response(bodyless: true)
            #expect(head.headers.filter { $0.name != "Date" }.map { "\($0.name): \($0.value)" } == withoutDate[0])
            let changed = try await client.response()
            #expect(changed.header("Location") == "/x")
            #expect(changed.header("Cache-Control") == "no-store")
            #expect(try await server.roundTrip("GET /bad HTTP/1.1\r\nHost: a\r\n\r\n").status == 500)
        }
    }
}
