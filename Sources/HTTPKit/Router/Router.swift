/// The routing table: method + path pattern → handler.
///
/// ```swift
/// var router = Router()
/// router.get("/timeline.json") { request, context in … }
/// router.post("/timeline.json", bodyLimit: 64 * 1024) { request, context in … }
/// router.delete("/timeline/entries/{id}") { request, context in
///     let id = try context.parameters.require("id")
///     …
/// }
/// router.mount("/timeline/", files: try FileServer(root: "Public/timeline"))
/// ```
///
/// A path with routes for other methods answers `405` with `Allow`; any other path `404`.
/// Every `GET` route also answers `HEAD`, without a body. Registration mistakes (a malformed
/// pattern, the same method and pattern twice) are programming errors and stop the program at
/// start-up; nothing a client sends can cause them.
public struct Router: Sendable {
    private var trie = RouteTrie()

    public init() {}

    /// Registers `handler` for `method` and `pattern`.
    ///
    /// - Parameters:
    ///   - bodyLimit: the largest request body this route accepts, in bytes; a larger one is
    ///     refused with `413` before it is read. `nil` uses
    ///     `HTTPServer.Configuration.Limits.maxBodyBytes`.
    ///   - startsOnEventLoop: run the middleware chain and the handler on the event loop until
    ///     their first suspension, instead of handing them to the concurrency pool at once.
    ///     Handing over and back costs two thread wake-ups, about half the CPU time of a small
    ///     request; a handler that answers from memory (a cached payload, a redirect, a health
    ///     check) can skip it. Only for code that never blocks or computes at length before its
    ///     first `await`: until then, every other connection of that event loop waits. What
    ///     follows the first suspension runs on the pool as usual.
    ///   - immediate: the answer at once, on the event loop, when the route has one without suspending
    ///     (see `ImmediateHandler`): no Swift task is made for such a request, and every middleware runs
    ///     its `handleImmediately`. When it (or a middleware) gives `nil`, `handler` answers as usual.
    public mutating func on(
        _ method: HTTPMethod,
        _ pattern: String,
        bodyLimit: Int? = nil,
        startsOnEventLoop: Bool = false,
        immediate: ImmediateHandler? = nil,
        handler: @escaping Handler
    ) {
        precondition(bodyLimit.map { $0 >= 0 } ?? true, "bodyLimit must not be negative")
        let parsed: RoutePattern
        do {
            parsed = try RoutePattern(pattern)
        } catch {
            preconditionFailure("invalid route pattern \(pattern): \(error)")
        }
        do {
            try self.trie.insert(
                Route(method: method, pattern: parsed, bodyLimit: bodyLimit, startsOnEventLoop: startsOnEventLoop, handler: handler,
                      immediate: immediate))
        } catch {
            preconditionFailure("route registered twice: \(error)")
        }
    }

    public mutating func get(_ pattern: String, startsOnEventLoop: Bool = false, immediate: ImmediateHandler? = nil,
                             handler: @escaping Handler) {
        self.on(.GET, pattern, startsOnEventLoop: startsOnEventLoop, immediate: immediate, handler: handler)
    }

    public mutating func post(_ pattern: String, bodyLimit: Int? = nil, handler: @escaping Handler) {
        self.on(.POST, pattern, bodyLimit: bodyLimit, handler: handler)
    }

    public mutating func put(_ pattern: String, bodyLimit: Int? = nil, handler: @escaping Handler) {
        self.on(.PUT, pattern, bodyLimit: bodyLimit, handler: handler)
    }

    public mutating func patch(_ pattern: String, bodyLimit: Int? = nil, handler: @escaping Handler) {
        self.on(.PATCH, pattern, bodyLimit: bodyLimit, handler: handler)
    }

    public mutating func delete(_ pattern: String, handler: @escaping Handler) {
        self.on(.DELETE, pattern, handler: handler)
    }

    /// Serves `files` under `prefix` (which ends in `/`): `GET prefix**`, and so `HEAD` too.
    /// A request for the prefix without its slash is redirected to it.
    public mutating func mount(_ prefix: String, files: FileServer) {
        precondition(prefix.hasPrefix("/") && prefix.hasSuffix("/"), "a mount prefix starts and ends with /")
        self.on(.GET, prefix + "**", bodyLimit: 0) { request, context in
            try await files.respond(to: request, context: context)
        }
    }

    func resolve(method: HTTPMethod, segments: [String]) -> RouteResolution {
        self.trie.resolve(method: method, segments: segments)
    }
}
