import Logging

/// The application as the connection handler sees it: route lookup (early, so that the body
/// limit is known before the body arrives) and the middleware chain around the route, with
/// every error turned into a response.
struct Responder: Sendable {
    let router: Router
    /// The middleware around the route, composed once (not per request): the route itself is the
    /// innermost step, found from the resolution the context carries.
    private let chain: NextHandler
    /// The same chain on the immediate path (`Middleware.handleImmediately`), ending in the route's
    /// `ImmediateHandler`.
    private let immediateChain: @Sendable (Request, inout RequestContext) throws -> Response?

    init(router: Router, middleware: [any Middleware]) {
        self.router = router
        let immediateEndpoint: @Sendable (Request, inout RequestContext) throws -> Response? = { request, context in
            guard case .matched(let route, _) = context.route, let immediate = route.immediate else { return nil }
            return try immediate(request, context)
        }
        self.immediateChain = middleware.reversed().reduce(immediateEndpoint) { next, middleware in
            { request, context in try middleware.handleImmediately(request, context: &context, next: next) }
        }
        let endpoint: NextHandler = { request, context in
            switch context.route {
            case .matched(let route, _):
                return try await route.handler(request, context)
            case .methodNotAllowed(let allow):
                throw HTTPError.methodNotAllowed(allow: allow)
            case .notFound, nil:
                throw HTTPError.notFound
            }
        }
        self.chain = middleware.reversed().reduce(endpoint) { next, middleware in
            { request, context in try await middleware.handle(request, context: context, next: next) }
        }
    }

    func resolve(method: HTTPMethod, segments: [String]) -> RouteResolution {
        self.router.resolve(method: method, segments: segments)
    }

    /// Runs the immediate chain, for a route with an `ImmediateHandler`: its answer, or `nil` when a step
    /// could not answer at once and `respond` must, with a context of its own (the steps fill this one in
    /// place). Never throws, as `respond`.
    func respondImmediately(to request: Request, context: inout RequestContext, resolution: RouteResolution) -> Response? {
        context.route = resolution
        if case .matched(_, let parameters) = resolution { context.parameters = parameters }
        do {
            return try self.immediateChain(request, &context)
        } catch {
            return Self.answer(to: error, logger: context.logger)
        }
    }

    /// Runs the chain. Never throws: an `HTTPResponseError` becomes its answer, anything else a
    /// `500` whose details go only to the log.
    func respond(to request: Request, context: RequestContext, resolution: RouteResolution) async -> Response {
        var context = context
        context.route = resolution
        if case .matched(_, let parameters) = resolution { context.parameters = parameters }
        do {
            return try await self.chain(request, context)
        } catch {
            return Self.answer(to: error, logger: context.logger)
        }
    }

    /// An `HTTPResponseError`'s own answer; anything else a `500` whose details go only to the log.
    private static func answer(to error: any Error, logger: Logger) -> Response {
        switch error {
        case let error as any HTTPResponseError:
            return error.response
        case is CancellationError:
            return HTTPError.serviceUnavailable.response
        default:
            // The type alone at error level; the description, which may quote data, at debug.
            logger.error("handler failed", metadata: ["error.type": "\(type(of: error))"])
            logger.debug("handler failure detail", metadata: ["error": "\(error)"])
            return HTTPError.internalServerError.response
        }
    }
}
