/// A place where the server accepts connections.
public enum Listener: Sendable, Equatable, CustomStringConvertible {
    /// TCP on `host` (an IPv4 or IPv6 address, or a name), `port` (0 picks a free one).
    case tcp(host: String, port: Int)
    /// A Unix domain socket at `path`, created with `mode` (owner only by default). A stale
    /// socket file at the path is replaced; a live one, or anything that is not a socket, is
    /// an error.
    case unix(path: String, mode: UInt32 = 0o600)
    /// An inherited socket that is already bound and listening (systemd socket activation).
    /// The server takes ownership of the descriptor.
    case inherited(descriptor: Int32)

    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path, _): "unix:\(path)"
        case .inherited(let descriptor): "fd:\(descriptor)"
        }
    }
}
