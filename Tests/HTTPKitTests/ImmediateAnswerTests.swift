@testable import HTTPKit
import NIOConcurrencyHelpers
import Testing

/// Routes that answer at once on the event loop (`Router.on(…immediate:)`), with no task made per request.
@Suite("Immediate answers")
struct ImmediateAnswerTests {
    /// Counts which path answered.
    final class Paths: Sendable {
        private let counts = NIOLockedValueBox<[String: Int]>([:])
        func note(_ path: String) { self.counts.withLockedValue { $0[path, default: 0] += 1 } }
        subscript(path: String) -> Int { self.counts.withLockedValue { $0[path] ?? 0 } }
    }

    /// `/cached/{n}` answers at once unless `n` is `miss`; `/plain` has no immediate answer.
    func router(_ paths: Paths) -> Router {
        var router = Router()
        router.get("/cached/{n}", startsOnEventLoop: true, immediate: { _, context in
            guard let n = context.parameters["n"], n != "miss" else { return nil }
            paths.note("route immediate")
            return .text("now \(n)")
        }) { _, context in
            paths.note("route handler")
            return .text("later \(context.parameters["n"] ?? "-")")
        }
        router.get("/plain") { _, _ in .text("plain") }
        return router
    }

    /// A middleware that stamps every answer, on either path, and refuses `X-Refuse: 1` on either.
    func stamping(_ paths: Paths) -> ClosureMiddleware {
        ClosureMiddleware(immediate: { request, context, next in
            paths.note("middleware immediate")
            if request.headers.first(name: "X-Refuse") == "1" { throw HTTPError(.forbidden, code: "refused", message: "No.") }
            guard var response = try next(request, &context) else { return nil }
            response.headers.add(name: "X-Stamp", value: "immediate")
            return response
        }) { request, context, next in
            paths.note("middleware handler")
            if request.headers.first(name: "X-Refuse") == "1" { throw HTTPError(.forbidden, code: "refused", message: "No.") }
            var response = try await next(request, context)
            response.headers.add(name: "X-Stamp", value: "handler")
            return response
        }
    }

    @Test("the immediate answer goes through every middleware's immediate step, and no handler runs")
    func immediate() async throws {
        let paths = Paths()
        try await withServer(router: router(paths), middleware: [stamping(paths)]) { server in
            let response = try await server.roundTrip(http("GET /cached/7 HTTP/1.1", "Host: x"))
            #expect(response.status == 200)
            #expect(response.bodyText == "now 7")
            #expect(response.header("X-Stamp") == "immediate")
            #expect(response.header("Content-Length") == "5")
        }
        #expect(paths["route immediate"] == 1 && paths["middleware immediate"] == 1)
        #expect(paths["route handler"] == 0 && paths["middleware handler"] == 0)
    }

    @Test("when the route has no answer at once, the request goes through the middleware and handler as usual")
    func fallsBack() async throws {
        let paths = Paths()
        try await withServer(router: router(paths), middleware: [stamping(paths)]) { server in
            let response = try await server.roundTrip(http("GET /cached/miss HTTP/1.1", "Host: x"))
            #expect(response.bodyText == "later miss")
            #expect(response.header("X-Stamp") == "handler")
            let plain = try await server.roundTrip(http("GET /plain HTTP/1.1", "Host: x"))
            #expect(plain.header("X-Stamp") == "handler")
        }
        #expect(paths["route handler"] == 1 && paths["middleware handler"] == 2)
        // /plain has no immediate answer: its middleware's immediate step is never asked.
        #expect(paths["middleware immediate"] == 1)
    }

    @Test("a middleware without an immediate step keeps every request on the handler path")
    func defaultMiddleware() async throws {
        let paths = Paths()
        let plain = ClosureMiddleware { request, context, next in
            paths.note("plain middleware")
            return try await next(request, context)
        }
        try await withServer(router: router(paths), middleware: [stamping(paths), plain]) { server in
            let response = try await server.roundTrip(http("GET /cached/3 HTTP/1.1", "Host: x"))
            #expect(response.bodyText == "later 3")
            #expect(response.header("X-Stamp") == "handler")
        }
        #expect(paths["plain middleware"] == 1 && paths["route immediate"] == 0 && paths["route handler"] == 1)
    }

    /// What a middleware put into the context on the immediate path.
    enum NotedKey: ContextKey { typealias Value = String }

    @Test("the immediate steps share one context; the handler path starts from a fresh one")
    func contextInPlace() async throws {
        let paths = Paths()
        var router = Router()
        router.get("/cached/{n}", startsOnEventLoop: true, immediate: { _, context in
            guard context.parameters["n"] != "miss" else { return nil }
            return .text("now \(context.values[NotedKey.self] ?? "none")")
        }) { _, context in
            .text("later \(context.values[NotedKey.self] ?? "none")")
        }
        let noting = ClosureMiddleware(immediate: { request, context, next in
            context.values[NotedKey.self] = "immediate"
            return try next(request, &context)
        }) { request, context, next in
            paths.note("handler path")
            return try await next(request, context)
        }
        try await withServer(router: router, middleware: [noting]) { server in
            let now = try await server.roundTrip(http("GET /cached/1 HTTP/1.1", "Host: x"))
            let later = try await server.roundTrip(http("GET /cached/miss HTTP/1.1", "Host: x"))
            #expect(now.bodyText == "now immediate")
            #expect(later.bodyText == "later none")
        }
        #expect(paths["handler path"] == 1)
    }

    @Test("a refusal on the immediate path is the same answer as on the handler path")
    func refusal() async throws {
        let paths = Paths()
        try await withServer(router: router(paths), middleware: [stamping(paths)]) { server in
            let now = try await server.roundTrip(http("GET /cached/1 HTTP/1.1", "Host: x", "X-Refuse: 1"))
            let later = try await server.roundTrip(http("GET /cached/miss HTTP/1.1", "Host: x", "X-Refuse: 1"))
            #expect(now.status == 403 && later.status == 403)
            #expect(now.bodyText == later.bodyText)
            #expect(now.bodyText.contains("refused"))
        }
        #expect(paths["route immediate"] == 0 && paths["route handler"] == 0)
    }

    @Test("pipelined requests answered at once, later, and by another route come back in order")
    func pipelining() async throws {
        let paths = Paths()
        var router = router(paths)
        router.get("/pool/{n}") { _, context in .text("pool \(context.parameters["n"] ?? "-")") }
        try await withServer(router: router, middleware: [stamping(paths)]) { server in
            let client = try await server.connect()
            let targets = (0..<30).map { i in ["/cached/\(i)", "/cached/miss", "/pool/\(i)"][i % 3] }
            try await client.send(targets.map { http("GET \($0) HTTP/1.1", "Host: x") }.joined())
            let responses = try await client.responses(30)
            let expected = (0..<30).map { i in ["now \(i)", "later miss", "pool \(i)"][i % 3] }
            #expect(responses.map(\.bodyText) == expected)
            await client.close()
        }
    }

    @Test("an immediate answer is logged like any other")
    func logged() async throws {
        let log = CapturedLog()
        let paths = Paths()
        try await withServer(router: router(paths), logger: log.logger) { server in
            _ = try await server.roundTrip(http("GET /cached/12 HTTP/1.1", "Host: x"))
        }
        let access = try #require(log.all.first { $0.metadata["http.status"] != nil })
        #expect(access.message.hasPrefix("GET /cached/12 200 6B "))
    }
}
