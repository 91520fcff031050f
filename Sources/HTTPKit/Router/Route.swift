/// A handler: what runs for a request that matched a route. It runs on the Swift concurrency
/// pool, off the event loop, so it may await slow work; it must not block a thread for long
/// (use a thread pool or a queue for that).
public typealias Handler = @Sendable (Request, RequestContext) async throws -> Response

/// A route's answer when it has one at once, on the event loop, without suspending or blocking (a page
/// from a cache, say); `nil` when it has not, and the route's `Handler` answers instead. Runs behind the
/// middleware's `handleImmediately`, with no Swift task made for the request.
public typealias ImmediateHandler = @Sendable (Request, RequestContext) throws -> Response?

/// One registered endpoint: a method, a pattern, its body limit and its handler.
///
/// A class: every request carries its route (`RouteResolution`, `RequestContext.route`) and copies it a few
/// times on the way; a reference is one retain, where the struct's copy retained each of its parts.
final class Route: Sendable {
    let method: HTTPMethod
    let pattern: RoutePattern
    /// The largest request body this route accepts; `nil` uses the server's default.
    let bodyLimit: Int?
    /// Whether the middleware chain and handler start on the event loop (see `Router.on`).
    let startsOnEventLoop: Bool
    let handler: Handler
    /// The answer at once, when the route can give one (see `ImmediateHandler`).
    let immediate: ImmediateHandler?

    init(method: HTTPMethod, pattern: RoutePattern, bodyLimit: Int?, startsOnEventLoop: Bool, handler: @escaping Handler,
         immediate: ImmediateHandler? = nil) {
        self.method = method
        self.pattern = pattern
        self.bodyLimit = bodyLimit
        self.startsOnEventLoop = startsOnEventLoop
        self.handler = handler
        self.immediate = immediate
    }
}

/// The outcome of looking up a method and path.
enum RouteResolution: Sendable {
    case matched(Route, Parameters)
    /// The path exists, but not for this method; `allow` lists the methods it does have.
    case methodNotAllowed(allow: [HTTPMethod])
    case notFound

    var bodyLimit: Int? {
        if case .matched(let route, _) = self { route.bodyLimit } else { nil }
    }

    var startsOnEventLoop: Bool {
        if case .matched(let route, _) = self { route.startsOnEventLoop } else { false }
    }

    var answersImmediately: Bool {
        if case .matched(let route, _) = self { route.immediate != nil } else { false }
    }
}
