import NIOCore

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

    /// The raw bytes of the answer, with the default headers, built once per server.
    static func answerBytes(headBuilder: ResponseHeadBuilder) -> ByteBuffer {
        let response = HTTPError.serviceUnavailable.response
        let head = headBuilder.head(for: response, version: .http1_1, keepAlive: false)
        var text = "HTTP/1.1 \(head.status.code) \(head.status.reasonPhrase)\r\n"
        for (name, value) in head.headers where name.lowercased() != "date" {
            text += "\(name): \(value)\r\n"
        }
        text += "\r\n"
        var buffer = ByteBuffer(string: text)
        if case .bytes(let body) = response.body {
            buffer.writeImmutableBuffer(body)
        }
        return buffer
    }
}
