import NIOCore
import NIOHTTP1

/// Sends a file body: reads a chunk off the event loop, writes it, and reads the next only
/// when the previous one is in the kernel's hands, so one chunk per connection is in memory.
///
/// Not sendfile(2): when a file shrinks during the transfer, NIO's file region write retries a
/// zero-byte sendfile without end, spinning a core until the client goes away. Reading makes
/// the short file visible, and the connection is closed instead.
final class FileBodyWriter {
    /// Large enough that the per-chunk hand-off to the concurrency pool is noise, small enough
    /// that many large downloads at once do not matter.
    static let chunkSize = 128 * 1024

    private let file: OpenFile
    private let context: ChannelHandlerContext
    private let gate: EventLoopGate
    private let writeTimeout: Duration
    private let completion: (Bool) -> Void
    private var offset = 0

    /// - Parameters:
    ///   - writeTimeout: how long one chunk may wait for the client to take it; then the
    ///     connection is closed (a client that stopped reading).
    ///   - completion: called on the event loop with `true` once every byte is written,
    ///     `false` when the transfer failed (the connection is then being closed).
    init(
        file: OpenFile,
        context: ChannelHandlerContext,
        gate: EventLoopGate,
        writeTimeout: Duration,
        completion: @escaping (Bool) -> Void
    ) {
        self.file = file
        self.context = context
        self.gate = gate
        self.writeTimeout = writeTimeout
        self.completion = completion
    }

    func start() {
        self.readNextChunk()
    }

    private func readNextChunk() {
        let file = self.file
        let offset = self.offset
        let count = min(Self.chunkSize, file.size - offset)
        let eventLoop = self.context.eventLoop
        let loopBoundSelf = NIOLoopBound(self, eventLoop: eventLoop)
        let gate = self.gate
        Task {
            let chunk = file.read(offset: offset, count: count)
            gate.execute(on: eventLoop) {
                loopBoundSelf.value.write(chunk, expected: count)
            }
        }
    }

    private func write(_ chunk: ByteBuffer?, expected: Int) {
        guard let chunk, chunk.readableBytes == expected, self.context.channel.isActive else {
            // The file shrank or failed: the promised length cannot be kept.
            self.context.close(promise: nil)
            self.completion(false)
            return
        }
        let loopBoundSelf = NIOLoopBound(self, eventLoop: self.context.eventLoop)
        let channel = self.context.channel
        let deadline = self.context.eventLoop.scheduleTask(in: TimeAmount(self.writeTimeout)) {
            channel.close(promise: nil)
        }
        self.context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(chunk)))).whenComplete { result in
            deadline.cancel()
            loopBoundSelf.value.chunkWritten(expected, success: (try? result.get()) != nil)
        }
    }

    private func chunkWritten(_ count: Int, success: Bool) {
        guard success else {
            self.completion(false)
            return
        }
        self.offset += count
        if self.offset < self.file.size {
            self.readNextChunk()
        } else {
            self.completion(true)
        }
    }
}
