/// The rest of the chain, as seen by a middleware: the next middleware, or finally the route.
public typealias NextHandler = @Sendable (Request, RequestContext) async throws -> Response

/// The rest of the chain on the immediate path (see `Middleware.handleImmediately`): the next
/// middleware's `handleImmediately`, or finally the route's `ImmediateHandler`; `nil` when one of them
/// cannot answer at once. The context is passed on in place, not copied at each step.
public typealias ImmediateNext = (Request, inout RequestContext) throws -> Response?

/// A step that every request passes through before its route, in the order given to
/// `HTTPServer`. A middleware may answer by itself (a `401`, say) without calling `next`,
/// change the request or context on the way in, or the response on the way out.
///
/// Middleware runs for every request, including those that will end in `404` or `405` (which
/// `next` throws as `HTTPError`), so that an access policy also covers paths that do not exist.
public protocol Middleware: Sendable {
    func handle(_ request: Request, context: RequestContext, next: NextHandler) async throws -> Response

    /// The same step for a route that can answer at once (`Router.on(_:_:immediate:handler:)`), on the
    /// event loop, without suspending or blocking. Return `nil` when this step cannot be taken so (it
    /// would wait for a store read, say), or when `next` gave `nil`: the request then goes through
    /// `handle` from the start, so return `nil` before any effect that `handle` must not repeat. The
    /// default is `nil`: a middleware that does not implement it keeps every request on `handle`.
    ///
    /// The context is changed in place for the steps after this one (a copy made and freed at each step cost
    /// a cached page about 900 instructions); `handle` starts from a fresh context, whatever the immediate
    /// steps put into this one.
    func handleImmediately(_ request: Request, context: inout RequestContext, next: ImmediateNext) throws -> Response?
}

extension Middleware {
    public func handleImmediately(_ request: Request, context: inout RequestContext, next: ImmediateNext) throws -> Response? {
        nil
    }
}

/// A middleware from a closure, for small hooks and tests.
public struct ClosureMiddleware: Middleware {
    private let body: @Sendable (Request, RequestContext, NextHandler) async throws -> Response
    private let immediate: (@Sendable (Request, inout RequestContext, ImmediateNext) throws -> Response?)?

    public init(
        immediate: (@Sendable (Request, inout RequestContext, ImmediateNext) throws -> Response?)? = nil,
        _ body: @escaping @Sendable (Request, RequestContext, NextHandler) async throws -> Response
    ) {
        self.body = body
        self.immediate = immediate
    }

    public func handle(_ request: Request, context: RequestContext, next: NextHandler) async throws -> Response {
        try await self.body(request, context, next)
    }

    public func handleImmediately(_ request: Request, context: inout RequestContext, next: ImmediateNext) throws -> Response? {
        try self.immediate?(request, &context, next)
    }
}
