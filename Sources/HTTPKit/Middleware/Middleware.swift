/// The rest of the chain, as seen by a middleware: the next middleware, or finally the route.
public typealias NextHandler = @Sendable (Request, RequestContext) async throws -> Response

/// A step that every request passes through before its route, in the order given to
/// `HTTPServer`. A middleware may answer by itself (a `401`, say) without calling `next`,
/// change the request or context on the way in, or the response on the way out.
///
/// Middleware runs for every request, including those that will end in `404` or `405` (which
/// `next` throws as `HTTPError`), so that an access policy also covers paths that do not exist.
public protocol Middleware: Sendable {
    func handle(_ request: Request, context: RequestContext, next: NextHandler) async throws -> Response
}

/// A middleware from a closure, for small hooks and tests.
public struct ClosureMiddleware: Middleware {
    private let body: @Sendable (Request, RequestContext, NextHandler) async throws -> Response

    public init(_ body: @escaping @Sendable (Request, RequestContext, NextHandler) async throws -> Response) {
        self.body = body
    }

    public func handle(_ request: Request, context: RequestContext, next: NextHandler) async throws -> Response {
        try await self.body(request, context, next)
    }
}
