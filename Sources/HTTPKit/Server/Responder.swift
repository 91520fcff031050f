import Logging

/// The application as the connection handler sees it: route lookup (early, so that the body
/// limit is known before the body arrives) and the middleware chain around the route, with
/// every error turned into a response.
struct Responder: Sendable {
    let router: Router
    /// The middleware around the route, composed once (not per request): the route itself is the
    /// innermost step, found from the resolution the context carries.
    private let chain: NextHandler

    init(router: Router, middleware: [any Middleware]) {
        self.router = router
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

    /// Runs the chain. Never throws: an `HTTPResponseError` becomes its answer, anything else a
    /// `500` whose details go only to the log.
    func respond(to request: Request, context: RequestContext, resolution: RouteResolution) async -> Response {
        var context = context
        context.route = resolution
        if case .matched(_, let parameters) = resolution { context.parameters = parameters }
        do {
            return try await self.chain(request, context)
        } catch let error as any HTTPResponseError {
            return error.response
        } catch is CancellationError {
            return HTTPError.serviceUnavailable.response
        } catch {
            // The type alone at error level; the description, which may quote data, at debug.
            context.logger.error("handler failed", metadata: ["error.type": "\(type(of: error))"])
            context.logger.debug("handler failure detail", metadata: ["error": "\(error)"])
            return HTTPError.internalServerError.response
        }
    }
}
