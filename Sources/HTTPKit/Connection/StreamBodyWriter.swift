import NIOCore
import NIOHTTP1

/// Sends a streamed body (`ResponseStream`): asks for a chunk off the event loop, writes it, and asks for
/// the next only when the previous one is in the kernel's hands, so one chunk per connection is in memory
/// (the same pacing as `FileBodyWriter`).
final class StreamBodyWriter {
    private let stream: ResponseStream
    private let context: ChannelHandlerContext
    private let gate: EventLoopGate
    private let writeTimeout: Duration
    private let completion: (Bool, Int) -> Void
    private var written = 0

    /// - Parameters:
    ///   - writeTimeout: how long one chunk may wait for the client to take it; then the connection is
    ///     closed (a client that stopped reading).
    ///   - completion: called on the event loop with `true` and the bytes sent once the stream ended and
    ///     every byte is written, `false` when the transfer failed (the connection is then being closed).
    init(stream: ResponseStream, context: ChannelHandlerContext, gate: EventLoopGate, writeTimeout: Duration,
         completion: @escaping (Bool, Int) -> Void) {
        self.stream = stream
        self.context = context
        self.gate = gate
        self.writeTimeout = writeTimeout
        self.completion = completion
    }

    func start() {
        self.askForNextChunk()
    }

    private func askForNextChunk() {
        let stream = self.stream
        let eventLoop = self.context.eventLoop
        let loopBoundSelf = NIOLoopBound(self, eventLoop: eventLoop)
        let gate = self.gate
        Task {
            let chunk: Result<ByteBuffer?, any Error>
            do { chunk = .success(try await stream.next()) } catch { chunk = .failure(error) }
            gate.execute(on: eventLoop) {
                loopBoundSelf.value.received(chunk)
            }
        }
    }

    private func received(_ chunk: Result<ByteBuffer?, any Error>) {
        guard self.context.channel.isActive, case .success(let next) = chunk else {
            // The body cannot be finished: cut it short rather than end it as if it were whole.
            self.fail()
            return
        }
        guard let buffer = next else {
            self.stream.finished(true)
            self.completion(true, self.written)
            return
        }
        guard buffer.readableBytes > 0 else {
            // An empty chunk would end a chunked body: ask for the next one instead.
            self.askForNextChunk()
            return
        }
        let loopBoundSelf = NIOLoopBound(self, eventLoop: self.context.eventLoop)
        let channel = self.context.channel
        let deadline = self.context.eventLoop.scheduleTask(in: TimeAmount(self.writeTimeout)) {
            channel.close(promise: nil)
        }
        let count = buffer.readableBytes
        self.context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buffer)))).whenComplete { result in
            deadline.cancel()
            let value = loopBoundSelf.value
            guard (try? result.get()) != nil else { return value.fail() }
            value.written += count
            value.askForNextChunk()
        }
    }

    private func fail() {
        self.context.close(promise: nil)
        self.stream.finished(false)
        self.completion(false, self.written)
    }
}
