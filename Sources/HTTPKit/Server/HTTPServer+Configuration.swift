import Logging
import NIOCore

extension HTTPServer {
    /// Everything the server can be told, each with a safe default.
    public struct Configuration: Sendable {
        /// Where to listen. The default is loopback only.
        public var listeners: [Listener] = [.tcp(host: "127.0.0.1", port: 8080)]
        public var limits = Limits()
        /// Headers added to every response (errors included) that does not set the same header
        /// itself: the product's security headers, by default `SecurityHeaders()`. `start()` refuses
        /// any that cannot be sent, and `Content-Length`, `Transfer-Encoding`, `Connection`, `Keep-Alive`
        /// and `Date`, which the server writes itself.
        public var defaultHeaders: HTTPHeaders = SecurityHeaders().headers
        /// Event loop threads; each serves many connections. Handlers run elsewhere, on the
        /// Swift concurrency pool.
        public var eventLoopThreads: Int = System.coreCount
        /// The level of the one access-log line per request.
        public var accessLogLevel: Logger.Level = .info
        /// Where access lines are written, bypassing the logger's handler (still at `accessLogLevel`,
        /// and only when the logger's level lets that level through); `nil` logs them through the logger.
        public var accessLogOutput: (any AccessLogOutput)? = nil

        public init() {}
    }

    /// Limits on what a client may send or hold. Each guards one resource against one kind of
    /// misuse, and each is enforced with a clear answer (or, where none can be given, a close).
    public struct Limits: Sendable {
        /// The request line plus every header name and value, in bytes, separators not counted
        /// (as NIO's decoder counts them). Over it: `431`.
        public var maxHeaderBytes = 16 * 1024
        /// Header fields in one request. Over it: `431`.
        public var maxHeaderCount = 100
        /// The body limit of routes that set none (`Router.on(_:_:bodyLimit:handler:)`). Over it:
        /// `413`, before the body is read when `Content-Length` tells.
        public var maxBodyBytes = 1024 * 1024
        /// How long a client has to send a complete request head: from the accept for the first
        /// request, from its first byte for later ones. Then the connection is closed
        /// (slow-loris).
        public var requestHeadTimeout: Duration = .seconds(10)
        /// How long a client has to send a complete body once the head is in. Then the
        /// connection is closed.
        public var requestBodyTimeout: Duration = .seconds(30)
        /// How long an idle keep-alive connection waits for the next request's first byte.
        public var keepAliveTimeout: Duration = .seconds(15)
        /// How long a complete request waits for the client to read earlier answers (pipelined
        /// requests for large bodies, never read). Then the connection is closed.
        public var responseWriteTimeout: Duration = .seconds(30)
        /// Open connections at once, over all listeners. One more is answered `503` and closed.
        public var maxConnections = 512
        /// Requests served on one connection; the last response says `Connection: close`.
        public var maxRequestsPerConnection = 1000
        /// After an error answer that leaves unread request bytes (a `413`, say), how long the
        /// server keeps reading and dropping them before closing, so that closing with unread
        /// data does not reset the connection before the client has read the answer.
        public var lingeringCloseTimeout: Duration = .seconds(2)
        /// Pending connections the kernel queues before the server accepts them.
        public var listenBacklog = 256

        public init() {}
    }
}
