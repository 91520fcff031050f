import Logging

/// The application as the connection handler sees it: route lookup (early, so that the body
/// limit is known before the body arrives) and the middleware chain around the route, with
/// every error turned into a response.
struct Responder: Sendable {
    let router: Router
    let middleware: [any Middleware]

    func resolve(method: HTTPMethod, segments: [String]) -> RouteResolution {
        self.router.resolve(method: method, segments: segments)
    }

    /// Runs the chain. Never throws: an `HTTPError` becomes its JSON answer, anything else a
    /// `500` whose details go only to the log.
    func respond(to request: Request, context: RequestContext, resolution: RouteResolution) async -> Response {
        var context = context
        let endpoint: NextHandler
        switch resolution {
        case .matched(let route, let parameters):
            context.parameters = parameters
            endpoint = route.handler
        case .methodNotAllowed(let allow):
            endpoint = { _, _ in throw HTTPError.methodNotAllowed(allow: allow) }
        case .notFound:
            endpoint = { _, _ in throw HTTPError.notFound }
        }
        do {
            return try await self.chain(from: 0, endpoint: endpoint)(request, context)
        } catch let error as HTTPError {
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

    private func chain(from index: Int, endpoint: @escaping NextHandler) -> NextHandler {
        guard index < self.middleware.count else { return endpoint }
        let middleware = self.middleware[index]
        let next = self.chain(from: index + 1, endpoint: endpoint)
        return { request, context in
            try await middleware.handle(request, context: context, next: next)
        }
    }
}
