import Logging

/// What the server knows about a request besides the request itself: the route's parameters,
/// the connection, a logger, and values that middleware hands to handlers.
public struct RequestContext: Sendable {
    /// The `{name}` captures (and `**` rest) of the matched route pattern.
    public var parameters: Parameters
    /// The client's address; for a Unix socket it carries no useful path.
    public let peerAddress: SocketAddress?
    /// The address of the listener that accepted the connection.
    public let localAddress: SocketAddress?
    /// Whether the connection came through a Unix domain socket (whose access is controlled by
    /// the socket file's permissions rather than by network reachability).
    public var isUnixSocket: Bool {
        if case .unixDomainSocket = self.localAddress { return true }
        return false
    }
    public var logger: Logger
    /// Values set by middleware for later middleware and handlers (the signed-in session, say).
    public var values: ContextValues
    /// What the router found for this request; the responder sets it before the middleware runs.
    var route: RouteResolution?

    public init(
        parameters: Parameters = Parameters(),
        peerAddress: SocketAddress? = nil,
        localAddress: SocketAddress? = nil,
        logger: Logger,
        values: ContextValues = ContextValues()
    ) {
        self.parameters = parameters
        self.peerAddress = peerAddress
        self.localAddress = localAddress
        self.logger = logger
        self.values = values
    }
}

/// A key into `ContextValues`: a type, so that two modules cannot collide on a string name.
public protocol ContextKey {
    associatedtype Value: Sendable
}

/// Typed storage for per-request values, keyed by `ContextKey` types.
///
/// A request carries two or three values (who asked, a session): a short list searched in order costs less
/// than a dictionary made for each request.
public struct ContextValues: Sendable {
    // Inlinable, so that each module's use is specialised for its key: unspecialised, the generic lookup and
    // the boxing asked the runtime for type metadata on every request.
    @usableFromInline var storage: [(key: ObjectIdentifier, value: any Sendable)] = []

    public init() {}

    @inlinable
    public subscript<Key: ContextKey>(_ key: Key.Type) -> Key.Value? {
        get {
            let id = ObjectIdentifier(key)
            for item in self.storage where item.key == id {
                return item.value as? Key.Value
            }
            return nil
        }
        set {
            let id = ObjectIdentifier(key)
            if let index = self.storage.firstIndex(where: { $0.key == id }) {
                if let newValue { self.storage[index].value = newValue } else { self.storage.remove(at: index) }
            } else if let newValue {
                if self.storage.isEmpty { self.storage.reserveCapacity(4) }
                self.storage.append((id, newValue))
            }
        }
    }
}
