import NIOCore
import NIOHTTP1

/// The whole pipeline of a connection the server cannot take (too many open, or shutting
/// down): it answers `503` with `Connection: close` at once, without reading a request, and
/// closes. Cheaper than a full HTTP pipeline, and clearer to the client than a bare close.
final class OverCapacityHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let answer: ByteBuffer
    private let lingeringTimeout: Duration

    init(answer: ByteBuffer, lingeringTimeout: Duration) {
        self.answer = answer
        self.lingeringTimeout = lingeringTimeout
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        let timeout = self.lingeringTimeout
        context.writeAndFlush(self.wrapOutboundOut(self.answer)).whenComplete { _ in
            LingeringClose.close(channel, within: timeout)
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The request is never read: dropped.
    }

    /// The raw bytes of the answer, with the default headers and without a `Date` (they are made once per
    /// server), as `ResponseEncoder` writes any answer.
    static func answerBytes(defaultHeaders: DefaultHeaders) -> ByteBuffer {
        let response = HTTPError.serviceUnavailable.response
        var head = ResponseHeadBuilder.head(for: response, version: .http1_1, keepAlive: false)
        head.headers.remove(name: "date")
        var (buffer, _) = ResponseEncoder.serialize(head, defaults: defaultHeaders, allocator: ByteBufferAllocator())
        if case .bytes(let body) = response.body {
            buffer.writeImmutableBuffer(body)
        }
        return buffer
    }
}
