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

    @Test("the one-pass target parser agrees with splitting the path, on 5,000 random targets")
    func targetsAsSplit() {
        let alphabet = ["/", "/", "a", "b", ".", "..", "%", "2F", "2E", "C3", "A9", "?", "#", "=", "&", "+", "é"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let raw = (Bool.random(using: &generator) ? "/" : "")
                + (0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
            let expected = Result { () throws(HTTPError) in try Self.splitTarget(raw) }
            let parsed = Result { () throws(HTTPError) in try RequestTarget(parsing: raw) }
            switch (expected, parsed) {
            case (.success(let a), .success(let b)):
                #expect(a.path == b.path && a.segments == b.segments && a.rawQuery == b.rawQuery && a.query == b.query.items, "\(raw)")
            case (.failure(let a), .failure(let b)):
                #expect(a.code == b.code, "\(raw)")
            default:
                Issue.record("\(raw): \(expected) against \(parsed)")
            }
        }
    }

    /// The parser as first written: the path split on `/`, each segment decoded, the query after the first `?`.
    private static func splitTarget(_ uri: String) throws(HTTPError) -> (path: String, segments: [String], rawQuery: String?, query: [Query.Item]) {
        guard uri.first == "/" else { throw HTTPError.badRequest("", code: "bad_target") }
        let halves = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard !uri.contains("#") else { throw HTTPError.badRequest("", code: "bad_target") }
        let path = halves[0]
        var segments: [String] = []
        if path.count > 1 {
            for raw in path.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
                guard let decoded = PercentDecoding.decode(raw, plusAsSpace: false) else { throw HTTPError.badRequest("", code: "bad_path") }
                guard decoded != ".", decoded != ".." else { throw HTTPError.badRequest("", code: "bad_path") }
                segments.append(decoded)
            }
        }
        let rawQuery = halves.count > 1 ? String(halves[1]) : nil
        let query = try rawQuery.map { (raw) throws(HTTPError) in try Query(parsing: raw).items } ?? []
        return (String(path), segments, rawQuery, query)
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
