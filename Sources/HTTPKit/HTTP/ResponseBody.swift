/// What follows the head of a response.
public enum ResponseBody: Sendable {
    case empty
    case bytes(ByteBuffer)
    /// A whole open file, read off the event loop and sent in chunks, one at a time as the
    /// client takes them. The file stays open until the last copy of the response is gone.
    /// A file that shrinks while it is sent ends the connection (its length was promised).
    case file(OpenFile)
    /// A body made as it is sent, chunk by chunk (`Transfer-Encoding: chunked`; to an HTTP/1.0 client,
    /// until the connection closes): for answers too large to hold in memory whole.
    case stream(ResponseStream)

    /// The number of body bytes, which becomes `Content-Length`; nil for a stream, whose length is not
    /// known before it ends.
    public var count: Int? {
        switch self {
        case .empty: 0
        case .bytes(let buffer): buffer.readableBytes
        case .file(let file): file.size
        case .stream: nil
        }
    }
}

/// The chunks of a streamed body. `next` is asked for one chunk at a time, off the event loop, and again
/// only once the previous one is in the kernel's hands: one chunk per connection is in memory, however
/// slowly the client reads. nil ends the body. A chunk that cannot be made (`next` throws) ends the
/// connection: the head is sent already, so the client sees a body cut short, never a wrong one.
/// `finished` is called once, with whether the body was sent whole: then, or when the response is never
/// sent (a HEAD request, a closed connection), what the stream holds can go.
public struct ResponseStream: Sendable {
    let next: @Sendable () async throws -> ByteBuffer?
    let finished: @Sendable (Bool) -> Void

    public init(next: @escaping @Sendable () async throws -> ByteBuffer?, finished: @escaping @Sendable (Bool) -> Void = { _ in }) {
        self.next = next
        self.finished = finished
    }
}
