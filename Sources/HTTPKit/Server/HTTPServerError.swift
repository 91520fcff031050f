/// Why the server could not start.
public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    case alreadyStarted
    /// A limit or setting is out of range (zero or negative, say).
    case invalidConfiguration(String)
    case noListeners
    /// A server is already answering on this Unix socket path.
    case socketPathInUse(String)
    /// Something other than a socket is at the path; it is left alone.
    case socketPathNotASocket(String)
    case socketPathTooLong(String)
    case socketPathFailed(path: String, operation: String, errno: Int32)
    case invalidInheritedSocket(descriptor: Int32, reason: String)
    case bindFailed(listener: String, reason: String)

    public var description: String {
        switch self {
        case .alreadyStarted: "the server was already started"
        case .invalidConfiguration(let reason): "invalid server configuration: \(reason)"
        case .noListeners: "no listeners are configured"
        case .socketPathInUse(let path): "another server is listening on \(path)"
        case .socketPathNotASocket(let path): "\(path) exists and is not a socket"
        case .socketPathTooLong(let path): "the socket path is too long: \(path)"
        case .socketPathFailed(let path, let operation, let code): "\(operation) \(path) failed (errno \(code))"
        case .invalidInheritedSocket(let descriptor, let reason): "inherited descriptor \(descriptor): \(reason)"
        case .bindFailed(let listener, let reason): "cannot listen on \(listener): \(reason)"
        }
    }
}
