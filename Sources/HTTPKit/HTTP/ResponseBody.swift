/// What follows the head of a response.
public enum ResponseBody: Sendable {
    case empty
    case bytes(ByteBuffer)
    /// A whole open file, read off the event loop and sent in chunks, one at a time as the
    /// client takes them. The file stays open until the last copy of the response is gone.
    /// A file that shrinks while it is sent ends the connection (its length was promised).
    case file(OpenFile)

    /// The number of body bytes, which becomes `Content-Length`.
    public var count: Int {
        switch self {
        case .empty: 0
        case .bytes(let buffer): buffer.readableBytes
        case .file(let file): file.size
        }
    }
}
