/// What follows the head of a response.
public enum ResponseBody: Sendable {
    case empty
    case bytes(ByteBuffer)
    /// A whole open file, sent with `sendfile(2)`; the file stays open until the write ends
    /// and is closed when the last copy of the response is gone.
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
