/// A trie of path segments: literal children, one parameter child, one catch-all, and at each
/// node the routes that end there, by method.
///
/// Lookup prefers a literal segment to a parameter, and a parameter to a catch-all, and
/// backtracks, so that `/patients/current` and `/patients/{id}` can live side by side.
struct RouteTrie: Sendable {
    private struct Node: Sendable {
        var literals: [String: Node] = [:]
        /// At most one element; an array gives the recursive struct its indirection.
        var parameter: [Node] = []
        var catchAll = MethodRoutes()
        var routes = MethodRoutes()
    }

    /// The routes of one node, by method. A path has a few methods: a list searched in order costs less than
    /// hashing the method's name on every request.
    private struct MethodRoutes: Sendable {
        private(set) var routes: [Route] = []

        var isEmpty: Bool { self.routes.isEmpty }

        subscript(method: HTTPMethod) -> Route? {
            for route in self.routes where route.method == method { return route }
            return nil
        }

        /// False when the method has a route here already.
        mutating func insert(_ route: Route) -> Bool {
            guard self[route.method] == nil else { return false }
            self.routes.append(route)
            return true
        }
    }

    private var root = Node()

    enum InsertError: Error, Equatable {
        case duplicate(method: String, pattern: String)
    }

    mutating func insert(_ route: Route) throws(InsertError) {
        try Self.insert(route, segments: route.pattern.segments[...], into: &self.root)
    }

    private static func insert(_ route: Route, segments: ArraySlice<RoutePattern.Segment>, into node: inout Node) throws(InsertError) {
        guard let first = segments.first else {
            guard node.routes.insert(route) else {
                throw .duplicate(method: route.method.rawValue, pattern: route.pattern.description)
            }
            return
        }
        let rest = segments.dropFirst()
        switch first {
        case .literal(let text):
            var child = node.literals[text] ?? Node()
            try insert(route, segments: rest, into: &child)
            node.literals[text] = child
        case .parameter:
            var child = node.parameter.first ?? Node()
            try insert(route, segments: rest, into: &child)
            node.parameter = [child]
        case .catchAll:
            guard node.catchAll.insert(route) else {
                throw .duplicate(method: route.method.rawValue, pattern: route.pattern.description)
            }
        }
    }

    func resolve(method: HTTPMethod, segments: [String]) -> RouteResolution {
        var search = Search(method: method, segments: segments)
        search.visit(self.root, at: 0)
        if let match = search.match {
            return match
        }
        if let allow = search.firstAllow {
            return .methodNotAllowed(allow: allow)
        }
        return .notFound
    }

    private struct Search {
        let method: HTTPMethod
        let segments: [String]
        var captured: [String] = []
        var match: RouteResolution?
        var firstAllow: [HTTPMethod]?

        /// Returns when a route for the method is found (in `match`).
        mutating func visit(_ node: Node, at index: Int) {
            if index == self.segments.count {
                self.consider(node.routes, catchAll: nil)
                if self.match == nil, !node.catchAll.isEmpty {
                    self.consider(node.catchAll, catchAll: [])
                }
                return
            }
            let segment = self.segments[index]
            if let child = node.literals[segment] {
                self.visit(child, at: index + 1)
                if self.match != nil { return }
            }
            if let child = node.parameter.first, !segment.isEmpty {
                self.captured.append(segment)
                self.visit(child, at: index + 1)
                if self.match != nil { return }
                self.captured.removeLast()
            }
            if !node.catchAll.isEmpty {
                self.consider(node.catchAll, catchAll: Array(self.segments[index...]))
            }
        }

        private mutating func consider(_ routes: MethodRoutes, catchAll: [String]?) {
            guard !routes.isEmpty else { return }
            // HEAD is answered by the GET route unless the path has its own HEAD route.
            let route = routes[self.method] ?? (self.method == .HEAD ? routes[.GET] : nil)
            if let route {
                let parameters = Parameters(names: route.pattern.parameterNames, values: self.captured, catchAll: catchAll)
                self.match = .matched(route, parameters)
            } else if self.firstAllow == nil {
                self.firstAllow = Self.allowList(routes.routes.map(\.method.rawValue))
            }
        }

        private static let order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

        /// The methods of a path in a stable order, HEAD included wherever GET is.
        static func allowList(_ methods: [String]) -> [HTTPMethod] {
            var names = Set(methods)
            if names.contains("GET") { names.insert("HEAD") }
            let sorted = names.sorted { lhs, rhs in
                let l = order.firstIndex(of: lhs) ?? order.count
                let r = order.firstIndex(of: rhs) ?? order.count
                return l != r ? l < r : lhs < rhs
            }
            return sorted.map { HTTPMethod(rawValue: $0) }
        }
    }
}
