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
public struct ContextValues: Sendable {
    private var storage: [ObjectIdentifier: any Sendable] = [:]

    public init() {}

    public subscript<Key: ContextKey>(_ key: Key.Type) -> Key.Value? {
        get { self.storage[ObjectIdentifier(key)] as? Key.Value }
        set { self.storage[ObjectIdentifier(key)] = newValue }
    }
}
