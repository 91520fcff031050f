import HTTPKit
import NIOConcurrencyHelpers
import NIOPosix
import Testing

@Suite("Requests and responses over real sockets")
struct ServerBasicsTests {
    @Test("a GET answers 200 with the body, Content-Length, Date and the default headers")
    func simpleGet() async throws {
        try await withServer { server in
            let response = try await server.roundTrip(http("GET /hello HTTP/1.1", "Host: localhost"))
            #expect(response.status == 200)
            #expect(response.bodyText == "hello")
            #expect(response.header("Content-Length") == "5")
            #expect(response.header("Date") != nil)
            #expect(response.header("X-Content-Type-Options") == "nosniff")
            #expect(response.header("X-Frame-Options") == "DENY")
            #expect(response.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
            #expect(response.header("Referrer-Policy") == "no-referrer")
            #expect(!response.closesConnection)
        }
    }

    @Test("HEAD answers like GET with the same Content-Length and no body bytes")
    func head() async throws {
        try await withServer { server in
            let client = try await server.connect()
            // The GET that follows on the same connection proves that no body bytes were sent.
            try await client.send(http("HEAD /hello HTTP/1.1", "Host: x") + http("GET /hello HTTP/1.1", "Host: x"))
            let head = try await client.response(bodyless: true)
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "5")
            let get = try await client.response()
            #expect(get.status == 200)
            #expect(get.bodyText == "hello")
            #expect(client.pendingBytes.isEmpty)
            await client.close()
        }
    }

    @Test("an unknown path is 404 with a JSON error body")
    func notFound() async throws {
        try await withServer { server in
            let response = try await server.roundTrip(http("GET /missing HTTP/1.1", "Host: x"))
            #expect(response.status == 404)
            #expect(response.header("Content-Type") == "application/json; charset=utf-8")
            #expect(response.bodyText == #"{"error":{"code":"not_found","message":"There is nothing at this address."}}"#)
        }
    }

    @Test("a known path with another method is 405 with Allow")
    func methodNotAllowed() async throws {
        try await withServer { server in
            let response = try await server.roundTrip(http("DELETE /hello HTTP/1.1", "Host: x"))
            #expect(response.status == 405)
            #expect(response.header("Allow") == "GET, HEAD, PUT")
            #expect(response.bodyText.contains(#""code":"method_not_allowed""#))
        }
    }

    @Test("path parameters and the decoded query reach the handler")
    func parametersAndQuery() async throws {
        try await withServer { server in
            let echoed = try await server.roundTrip(http("GET /echo-path/a%20b HTTP/1.1", "Host: x"))
            #expect(echoed.bodyText == "a b|/echo-path/a%20b")
            let query = try await server.roundTrip(http("GET /query?key=Levels&x=1&x=two+words&y=%2B1 HTTP/1.1", "Host: x"))
            #expect(query.bodyText == "key=Levels;x=1;x=two words;y=+1")
            let bad = try await server.roundTrip(http("GET /query?x=%zz HTTP/1.1", "Host: x"))
            #expect(bad.status == 400)
            #expect(bad.bodyText.contains("bad_query"))
        }
    }

    @Test("a thrown HTTPError becomes its answer; any other error a 500 that reveals nothing")
    func handlerErrors() async throws {
        struct Secret: Error, CustomStringConvertible { var description: String { "patient Henry Smith" } }
        var router = Router()
        router.get("/locked") { _, _ in throw HTTPError(.locked, code: "locked", message: "The store is locked.") }
        router.get("/boom") { _, _ in throw Secret() }
        try await withServer(router: router) { server in
            let locked = try await server.roundTrip(http("GET /locked HTTP/1.1", "Host: x"))
            #expect(locked.status == 423)
            #expect(locked.bodyText == #"{"error":{"code":"locked","message":"The store is locked."}}"#)
            let boom = try await server.roundTrip(http("GET /boom HTTP/1.1", "Host: x"))
            #expect(boom.status == 500)
            #expect(boom.bodyText.contains("internal_error"))
            #expect(!boom.bodyText.contains("Henry"))
        }
    }

    @Test("a header value with CR or LF from a handler is never sent: 500 instead")
    func responseSplitting() async throws {
        var router = Router()
        router.get("/split") { _, _ in Response(status: .ok, headers: ["X-Evil": "a\r\nSet-Cookie: owned=1"]) }
        try await withServer(router: router) { server in
            let response = try await server.roundTrip(http("GET /split HTTP/1.1", "Host: x"))
            #expect(response.status == 500)
            #expect(response.header("Set-Cookie") == nil)
        }
    }

    @Test("middleware runs in order around every route, may answer alone, and sees 404s")
    func middlewareChain() async throws {
        let seen = NIOLockedValueBox<[String]>([])
        struct Marker: ContextKey { typealias Value = String }
        let first = ClosureMiddleware { request, context, next in
            seen.withLockedValue { $0.append("first \(request.path)") }
            var response = try await next(request, context)
            response.headers.add(name: "X-First", value: "1")
            return response
        }
        let policy = ClosureMiddleware { request, context, next in
            guard request.headers.first(name: "Authorization") == "Bearer good" else {
                throw HTTPError(.unauthorized, code: "unauthorized", message: "Sign in first.")
            }
            var context = context
            context.values[Marker.self] = "signed in"
            return try await next(request, context)
        }
        var router = Router()
        router.get("/me") { _, context in .text(context.values[Marker.self] ?? "nobody") }
        try await withServer(router: router, middleware: [first, policy]) { server in
            let refused = try await server.roundTrip(http("GET /me HTTP/1.1", "Host: x"))
            #expect(refused.status == 401)
            #expect(refused.bodyText.contains(#""code":"unauthorized""#))
            let refusedMissing = try await server.roundTrip(http("GET /nowhere HTTP/1.1", "Host: x"))
            #expect(refusedMissing.status == 401)  // the policy also covers paths that do not exist
            let allowed = try await server.roundTrip(http("GET /me HTTP/1.1", "Host: x", "Authorization: Bearer good"))
            #expect(allowed.status == 200)
            #expect(allowed.bodyText == "signed in")
            #expect(allowed.header("X-First") == "1")
            let missing = try await server.roundTrip(http("GET /nowhere HTTP/1.1", "Host: x", "Authorization: Bearer good"))
            #expect(missing.status == 404)
        }
        #expect(seen.withLockedValue { $0 } == ["first /me", "first /nowhere", "first /me", "first /nowhere"])
    }

    @Test("the handler sees the peer address; over TCP it is not a Unix socket")
    func peerAddress() async throws {
        var router = Router()
        router.get("/peer") { _, context in
            .text("\(context.peerAddress?.ipAddress ?? "none") unix=\(context.isUnixSocket)")
        }
        try await withServer(router: router) { server in
            let response = try await server.roundTrip(http("GET /peer HTTP/1.1", "Host: x"))
            #expect(response.bodyText == "127.0.0.1 unix=false")
        }
    }

    @Test("handlers run off the event loop; a route that asks starts on it and leaves it at its first await")
    func handlerPlacement() async throws {
        var router = Router()
        router.get("/pool") { _, _ in
            .text("on loop: \(MultiThreadedEventLoopGroup.currentEventLoop != nil)")
        }
        router.get("/inline", startsOnEventLoop: true) { _, _ in
            let before = MultiThreadedEventLoopGroup.currentEventLoop != nil
            try await Task.sleep(for: .milliseconds(1))
            let after = MultiThreadedEventLoopGroup.currentEventLoop != nil
            return .text("before: \(before), after: \(after)")
        }
        try await withServer(router: router) { server in
            let pool = try await server.roundTrip(http("GET /pool HTTP/1.1", "Host: x"))
            #expect(pool.bodyText == "on loop: false")
            let inline = try await server.roundTrip(http("GET /inline HTTP/1.1", "Host: x"))
            #expect(inline.bodyText == "before: true, after: false")
        }
    }

    @Test("a route that starts on the event loop still answers pipelined requests in order")
    func inlinePipelining() async throws {
        var router = Router()
        router.get("/inline/{n}", startsOnEventLoop: true) { _, context in .text(context.parameters["n"] ?? "-") }
        router.get("/pool/{n}") { _, context in .text(context.parameters["n"] ?? "-") }
        try await withServer(router: router) { server in
            let client = try await server.connect()
            let requests = (0..<20).map { http("GET /\($0 % 2 == 0 ? "inline" : "pool")/\($0) HTTP/1.1", "Host: x") }
            try await client.send(requests.joined())
            let responses = try await client.responses(20)
            #expect(responses.map(\.bodyText) == (0..<20).map(String.init))
            await client.close()
        }
    }

    @Test("a slow handler does not stall other connections")
    func slowHandlerDoesNotStall() async throws {
        let (release, releaser) = AsyncStream<Void>.makeStream()
        let (started, starter) = AsyncStream<Void>.makeStream()
        var router = demoRouter()
        router.get("/slow") { _, _ in
            starter.yield()
            for await _ in release { break }
            return .text("slow")
        }
        try await withServer(router: router) { server in
            let slow = try await server.connect()
            try await slow.send(http("GET /slow HTTP/1.1", "Host: x"))
            for await _ in started { break }
            // With /slow still running, another connection is answered.
            let fast = try await server.roundTrip(http("GET /hello HTTP/1.1", "Host: x"))
            #expect(fast.bodyText == "hello")
            #expect(slow.pendingBytes.isEmpty)
            releaser.yield()
            let slowResponse = try await slow.response()
            #expect(slowResponse.bodyText == "slow")
            await slow.close()
        }
    }

    @Test("Expect: 100-continue gets 100 Continue before the body is sent")
    func expectContinue() async throws {
        try await withServer { server in
            let client = try await server.connect()
            try await client.send(http("POST /upload HTTP/1.1", "Host: x", "Content-Length: 4", "Expect: 100-continue"))
            let interim = try await client.response()
            #expect(interim.status == 100)
            try await client.send("abcd")
            let final = try await client.response()
            #expect(final.status == 200)
            #expect(final.bodyText == "4")
            await client.close()
        }
    }

    @Test("an unsupported expectation is 417")
    func expectOther() async throws {
        try await withServer { server in
            let response = try await server.roundTrip(http("POST /upload HTTP/1.1", "Host: x", "Content-Length: 0", "Expect: magic"))
            #expect(response.status == 417)
        }
    }

    @Test("HTTP/1.0 without keep-alive is answered and closed; with keep-alive it stays open")
    func http10() async throws {
        try await withServer { server in
            let plain = try await server.connect()
            try await plain.send("GET /hello HTTP/1.0\r\n\r\n")
            let response = try await plain.response()
            #expect(response.status == 200)
            #expect(response.closesConnection)
            #expect(await plain.waitUntilClosed())

            let kept = try await server.connect()
            try await kept.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let first = try await kept.response()
            #expect(first.header("Connection")?.lowercased() == "keep-alive")
            try await kept.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try await kept.response().bodyText == "hello")
            await kept.close()
        }
    }

    @Test("a request with Connection: close is answered, then the server closes")
    func connectionClose() async throws {
        try await withServer { server in
            let client = try await server.connect()
            try await client.send(http("GET /hello HTTP/1.1", "Host: x", "Connection: close"))
            let response = try await client.response()
            #expect(response.closesConnection)
            #expect(await client.waitUntilClosed())
        }
    }

    @Test("malformed HTTP is 400 with a JSON body and the default headers, then closed")
    func malformed() async throws {
        try await withServer { server in
            let client = try await server.connect()
            try await client.send("GET /hello HTTP/1.1\r\nHost x\r\n\r\n")
            let response = try await client.response()
            #expect(response.status == 400)
            #expect(response.bodyText.contains(#""code":"bad_request""#))
            #expect(response.header("X-Content-Type-Options") == "nosniff")
            #expect(response.closesConnection)
            #expect(await client.waitUntilClosed())
        }
    }
}
