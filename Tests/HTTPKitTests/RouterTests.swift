@testable import HTTPKit
import Testing

@Suite("Routing")
struct RouterTests {
    private func router() -> Router {
        var router = Router()
        let ok: Handler = { _, _ in Response() }
        router.get("/", handler: ok)
        router.get("/timeline.json", handler: ok)
        router.post("/timeline.json", bodyLimit: 64, handler: ok)
        router.delete("/timeline/entries/{id}", handler: ok)
        router.get("/patients/current", handler: ok)
        router.get("/patients/{id}/export.json", handler: ok)
        router.get("/files/**", handler: ok)
        return router
    }

    private func resolve(_ method: HTTPMethod, _ path: String) throws -> RouteResolution {
        let target = try RequestTarget(parsing: path)
        return self.router().resolve(method: method, segments: target.segments)
    }

    @Test("a {param} segment captures the decoded segment")
    func parameterCapture() throws {
        guard case .matched(let route, let parameters) = try self.resolve(.GET, "/patients/p%201/export.json") else {
            Issue.record("no match")
            return
        }
        #expect(route.pattern.description == "/patients/{id}/export.json")
        #expect(parameters["id"] == "p 1")
    }

    @Test("a literal segment wins over a parameter at the same place")
    func literalFirst() throws {
        guard case .matched(let route, let parameters) = try self.resolve(.GET, "/patients/current") else {
            Issue.record("no match")
            return
        }
        #expect(route.pattern.description == "/patients/current")
        #expect(parameters["id"] == nil)
    }

    @Test("a trailing ** captures the rest of the path, zero or more segments", arguments: [
        ("/files", [String]()),
        ("/files/", [""]),
        ("/files/a/b.js", ["a", "b.js"]),
    ])
    func catchAll(path: String, rest: [String]) throws {
        guard case .matched(_, let parameters) = try self.resolve(.GET, path) else {
            Issue.record("no match for \(path)")
            return
        }
        #expect(parameters.catchAll == rest)
    }

    @Test("a known path with another method is 405 with Allow (HEAD wherever GET is)")
    func methodNotAllowed() throws {
        guard case .methodNotAllowed(let allow) = try self.resolve(.PUT, "/timeline.json") else {
            Issue.record("expected 405")
            return
        }
        #expect(allow.map(\.rawValue) == ["GET", "HEAD", "POST"])
        guard case .methodNotAllowed(let deleteOnly) = try self.resolve(.GET, "/timeline/entries/t1") else {
            Issue.record("expected 405")
            return
        }
        #expect(deleteOnly.map(\.rawValue) == ["DELETE"])
    }

    @Test("HEAD is answered by the GET route")
    func headUsesGet() throws {
        guard case .matched(let route, _) = try self.resolve(.HEAD, "/timeline.json") else {
            Issue.record("no match")
            return
        }
        #expect(route.method == .GET)
    }

    @Test("unknown paths, a trailing slash and an empty parameter are 404", arguments: [
        "/nothing", "/timeline.json/", "/patients//export.json", "/timeline/entries/",
    ])
    func notFound(path: String) throws {
        guard case .notFound = try self.resolve(.GET, path) else {
            Issue.record("expected 404 for \(path)")
            return
        }
    }

    @Test("the route's body limit is known from the head")
    func bodyLimit() throws {
        #expect(try self.resolve(.POST, "/timeline.json").bodyLimit == 64)
        #expect(try self.resolve(.GET, "/timeline.json").bodyLimit == nil)
    }

    @Test("dot segments, raw or encoded, and non-origin targets are refused", arguments: [
        "/a/../b", "/a/./b", "/%2e%2e/x", "/a/%2E", "/..", "http://example.com/", "*", "example.com:80", "/a#frag",
        "/bad%zz", "/bad%C3",
    ])
    func refusedTargets(target: String) {
        #expect(throws: HTTPError.self) { try RequestTarget(parsing: target) }
    }

    @Test("a target splits into path, segments and query")
    func targetParts() throws {
        let target = try RequestTarget(parsing: "/a%2Fb/c/?x=1&x=2")
        #expect(target.path == "/a%2Fb/c/")
        #expect(target.segments == ["a/b", "c", ""])
        #expect(target.rawQuery == "x=1&x=2")
        #expect(target.query.values(for: "x") == ["1", "2"])
    }
}
