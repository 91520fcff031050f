import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A client that sends exactly the bytes a test gives it (malformed ones included) over a real
/// socket, and collects everything the server sends back.
final class RawClient: Sendable {
    private let channel: any Channel
    private let inbox: Inbox

    struct Timeout: Error, CustomStringConvertible {
        let what: String
        var description: String { "timed out waiting for \(self.what)" }
    }

    /// Received bytes and whether the server closed, shared with the channel handler.
    final class Inbox: Sendable {
        private struct State {
            var bytes: [UInt8] = []
            var closed = false
        }
        private let state = NIOLockedValueBox(State())

        func append(_ buffer: ByteBuffer) {
            self.state.withLockedValue { $0.bytes.append(contentsOf: buffer.readableBytesView) }
        }
        func markClosed() {
            self.state.withLockedValue { $0.closed = true }
        }
        var closed: Bool { self.state.withLockedValue { $0.closed } }
        var bytes: [UInt8] { self.state.withLockedValue { $0.bytes } }

        /// Removes and returns a complete response at the front, if there is one.
        func takeResponse(bodyless: Bool) -> ParsedResponse? {
            self.state.withLockedValue { state in
                guard let (response, used) = ParsedResponse.parse(state.bytes, bodyless: bodyless, closed: state.closed) else {
                    return nil
                }
                state.bytes.removeFirst(used)
                return response
            }
        }
    }

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let inbox: Inbox
        init(inbox: Inbox) { self.inbox = inbox }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            self.inbox.append(self.unwrapInboundIn(data))
        }
        func channelInactive(context: ChannelHandlerContext) {
            self.inbox.markClosed()
            context.fireChannelInactive()
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)  // a reset from the server counts as closed
        }
    }

    private init(channel: any Channel, inbox: Inbox) {
        self.channel = channel
        self.inbox = inbox
    }

    /// - Parameter reading: `false` leaves what the server sends in the socket, unread, as a
    ///   client that stopped reading would.
    static func connect(to address: SocketAddress, reading: Bool = true) async throws -> RawClient {
        let inbox = Inbox()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.autoRead, value: reading)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(inbox: inbox))
                }
            }
            .connect(to: address)
            .get()
        return RawClient(channel: channel, inbox: inbox)
    }

    func send(_ text: String) async throws {
        try await self.send(bytes: Array(text.utf8))
    }

    func send(bytes: [UInt8]) async throws {
        try await self.channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// The next complete response. `bodyless` for the answer to a HEAD request.
    func response(bodyless: Bool = false, timeout: Duration = .seconds(10)) async throws -> ParsedResponse {
        try await self.poll(timeout: timeout, what: "a response") { self.inbox.takeResponse(bodyless: bodyless) }
    }

    /// `count` responses, in order.
    func responses(_ count: Int, timeout: Duration = .seconds(10)) async throws -> [ParsedResponse] {
        var responses: [ParsedResponse] = []
        for _ in 0..<count {
            responses.append(try await self.response(timeout: timeout))
        }
        return responses
    }

    /// Whether the server closed the connection within `timeout`.
    func waitUntilClosed(timeout: Duration = .seconds(10)) async -> Bool {
        (try? await self.poll(timeout: timeout, what: "the close") { self.inbox.closed ? true : nil }) ?? false
    }

    var isClosed: Bool { self.inbox.closed }

    /// Everything received and not yet taken as a response.
    var pendingBytes: [UInt8] { self.inbox.bytes }

    /// Starts reading, for a client connected with `reading: false`.
    func startReading() async throws {
        try await self.channel.setOption(.autoRead, value: true).get()
        self.channel.read()
    }

    func close() async {
        try? await self.channel.close()
    }

    private func poll<T>(timeout: Duration, what: String, _ check: () -> T?) async throws -> T {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            if let value = check() { return value }
            guard clock.now < deadline else { throw Timeout(what: what) }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
