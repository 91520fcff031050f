import HTTPKit
import Testing

/// A request whose length two parties could read differently is refused with 400, and nothing
/// after it on the connection is answered: a smuggled request never reaches a route.
@Suite("Request smuggling and framing")
struct SmugglingTests {
    static let smuggled = "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n"

    static let cases: [(String, String)] = [
        ("Content-Length with Transfer-Encoding",
         "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled),
        ("Transfer-Encoding with Content-Length",
         "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 40\r\n\r\n0\r\n\r\n" + smuggled),
        ("two different lengths",
         "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 31\r\n\r\n" + smuggled),
        ("two equal lengths",
         "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc" + smuggled),
        ("a length list", "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 3, 3\r\n\r\nabc" + smuggled),
        ("a signed length", "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: +3\r\n\r\nabc" + smuggled),
        ("a negative length", "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n" + smuggled),
        ("a hexadecimal length", "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 0x3\r\n\r\nabc" + smuggled),
        ("a coding other than chunked",
         "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n" + smuggled),
        ("chunked twice", "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n" + smuggled),
        ("chunked not last",
         "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n0\r\n\r\n" + smuggled),
        ("chunked in HTTP/1.0", "POST /upload HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled),
        ("a space before the colon",
         "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n" + smuggled),
        ("a folded header line",
         "POST /upload HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled),
        ("a bad chunk size", "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n" + smuggled),
        ("a chunk size with a sign", "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n+3\r\nabc\r\n0\r\n\r\n" + smuggled),
        ("a bare LF in the head", "GET /hello HTTP/1.1\nHost: x\n\n" + smuggled),
        ("a NUL in a header value", "GET /hello HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n" + smuggled),
        ("HTTP/2 on an HTTP/1 port", "GET /hello HTTP/2.0\r\nHost: x\r\n\r\n" + smuggled),
    ]

    @Test("an ambiguous or malformed frame is 400, then closed, and the request after it is not answered", arguments: cases)
    func refused(name: String, bytes: String) async throws {
        try await withServer { server in
            let client = try await server.connect()
            try await client.send(bytes)
            let response = try await client.response()
            #expect(response.status == 400, "\(name): \(response)")
            #expect(response.closesConnection, "\(name)")
            #expect(await client.waitUntilClosed(), "\(name)")
            #expect(client.pendingBytes.isEmpty, "\(name): more was answered")
        }
    }

    @Test("a well-formed chunked body, with a trailer, is read whole and the connection stays open")
    func validChunked() async throws {
        try await withServer { server in
            let client = try await server.connect()
            try await client.send(
                http("POST /upload HTTP/1.1", "Host: x", "Transfer-Encoding: chunked")
                    + "3\r\nabc\r\n4;ext=1\r\ndefg\r\n0\r\nX-Trailer: t\r\n\r\n" + Self.smuggled)
            let upload = try await client.response()
            #expect(upload.status == 200)
            #expect(upload.bodyText == "7")
            let next = try await client.response()
            #expect(next.bodyText == "hello")
            await client.close()
        }
    }
}

@Suite("Keep-alive and pipelining")
struct PipeliningTests {
    @Test("several requests in one write are answered in order, even when the first is slowest")
    func pipelined() async throws {
        var router = Router()
        router.get("/wait/{ms}") { _, context in
            let ms = Int(try context.parameters.require("ms")) ?? 0
            try await Task.sleep(for: .milliseconds(ms))
            return .text("waited \(ms)")
        }
        router.post("/echo") { request, _ in .text(request.bodyText ?? "") }
        try await withServer(router: router) { server in
            let client = try await server.connect()
            try await client.send(
                http("GET /wait/150 HTTP/1.1", "Host: x")
                    + http("POST /echo HTTP/1.1", "Host: x", "Content-Length: 5") + "first"
                    + http("GET /wait/0 HTTP/1.1", "Host: x")
                    + http("HEAD /wait/10 HTTP/1.1", "Host: x")
                    + http("POST /echo HTTP/1.1", "Host: x", "Transfer-Encoding: chunked") + "6\r\nsecond\r\n0\r\n\r\n"
                    + http("GET /wait/1 HTTP/1.1", "Host: x"))
            let first = try await client.responses(3)
            #expect(first.map(\.bodyText) == ["waited 150", "first", "waited 0"])
            let head = try await client.response(bodyless: true)
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "9")
            let rest = try await client.responses(2)
            #expect(rest.map(\.bodyText) == ["second", "waited 1"])
            #expect(!client.isClosed)
            await client.close()
        }
    }

    @Test("many sequential requests share one connection")
    func keepAlive() async throws {
        try await withServer { server in
            let client = try await server.connect()
            for index in 0..<50 {
                try await client.send(http("GET /echo-path/\(index) HTTP/1.1", "Host: x"))
                let response = try await client.response()
                #expect(response.bodyText == "\(index)|/echo-path/\(index)")
            }
            #expect(server.server.connectionCount == 1)
            await client.close()
        }
    }
}
