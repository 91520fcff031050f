import NIOCore
import NIOHTTP1

/// Puts responses on the wire, in place of NIO's `HTTPResponseEncoder`: the head as written and the
/// server's default headers it does not set (`DefaultHeaders`, serialized once), the body as given, chunked
/// when the head says `Transfer-Encoding: chunked`.
///
/// It earns its place by what a small answer costs (issue 41, `docs/perf/README.md`): NIO's encoder
/// re-frames every head (a search of its headers for `Content-Length` and `Transfer-Encoding`), writes
/// it header by header into a buffer that grows twice for our ~500-byte heads, and passes head, body
/// and end down as three writes, the last an empty one whenever a promise waits on it. Here the head is
/// measured once and copied into a buffer of its size, and a head and a small body wait to go down
/// as one buffer with the end.
///
/// It trusts the head's framing, because `ResponseHeadBuilder` owns it for every response this server
/// writes: a `Content-Length` for a body of known size, `Transfer-Encoding: chunked` for a stream to an
/// HTTP/1.1 client (never for a `HEAD` request's answer, which has no body), neither for a body the
/// status forbids. Pipelining, parsing and back-pressure stay NIO's (`HTTPChannelSetup`).
final class ResponseEncoder: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = IOData

    /// A body up to this size is copied after its head, so that the answer goes down as one buffer
    /// (a copy of a few KiB costs less than a write of its own); a larger one is passed on as it is.
    static let coalescedBodyBytes = 16 * 1024

    /// Written into every final head that does not set them itself.
    private let defaultHeaders: DefaultHeaders
    /// The current response's body is sent in chunks.
    private var chunked = false
    /// The current response's head (and small body), not yet passed on: it waits for the end, or a
    /// flush, or a write that cannot join it. Only writes without a promise wait here.
    private var held: ByteBuffer?
    /// The next head's response's own headers, prepared (`PreparedHeaders`): written before the head's headers.
    /// `HTTPConnectionHandler` sets them just before it writes that head, which takes them.
    var preparedHeaders: PreparedHeaders?

    init(defaultHeaders: DefaultHeaders = .none) {
        self.defaultHeaders = defaultHeaders
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // NIO's instance helpers here and below, not its static `Self.` ones: those were left unspecialised, a
        // runtime cast of about 1,000 instructions for every part (issue 41, `docs/perf/README.md`).
        switch self.unwrapOutboundIn(data) {
        case .head(let head):
            self.passHeld(context: context)
            let own = self.preparedHeaders
            self.preparedHeaders = nil
            let (buffer, chunked) = Self.serialize(head, own: own, defaults: self.defaultHeaders, allocator: context.channel.allocator)
            if !Self.isInterim(head.status) {
                self.chunked = chunked
            }
            self.hold(buffer, promise: promise, context: context)
        case .body(let body):
            if self.chunked {
                self.writeChunk(body, promise: promise, context: context)
            } else if promise == nil, var held = self.held, case .byteBuffer(var bytes) = body,
                bytes.readableBytes <= Self.coalescedBodyBytes {
                self.held = nil  // the only reference: appending does not copy the head
                held.writeBuffer(&bytes)
                self.held = held
            } else {
                self.passHeld(context: context)
                context.write(self.wrapOutboundOut(body), promise: promise)
            }
        case .end(let trailers):
            if self.chunked {
                var last = context.channel.allocator.buffer(capacity: 5)
                last.writeStaticString("0\r\n")
                if let trailers {
                    Self.write(trailers, into: &last)
                }
                last.writeStaticString("\r\n")
                self.chunked = false
                self.append(last, promise: promise, context: context)
            } else if let held = self.held {
                self.held = nil
                context.write(self.wrapOutboundOut(.byteBuffer(held)), promise: promise)
            } else if let promise {
                // Nothing to write, but the promise must complete after the writes before it.
                context.write(self.wrapOutboundOut(.byteBuffer(ByteBuffer())), promise: promise)
            }
        }
    }

    func flush(context: ChannelHandlerContext) {
        self.passHeld(context: context)
        context.flush()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.held = nil  // the connection is going; nothing held has a promise to fail
    }

    private func hold(_ buffer: ByteBuffer, promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) {
        if promise == nil {
            self.held = buffer
        } else {
            context.write(self.wrapOutboundOut(.byteBuffer(buffer)), promise: promise)
        }
    }

    /// Adds `buffer` to what is held, or writes it when nothing is.
    private func append(_ buffer: ByteBuffer, promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) {
        if var held = self.held {
            self.held = nil
            var buffer = buffer
            held.writeBuffer(&buffer)
            context.write(self.wrapOutboundOut(.byteBuffer(held)), promise: promise)
        } else {
            context.write(self.wrapOutboundOut(.byteBuffer(buffer)), promise: promise)
        }
    }

    private func passHeld(context: ChannelHandlerContext) {
        if let held = self.held {
            self.held = nil
            context.write(self.wrapOutboundOut(.byteBuffer(held)), promise: nil)
        }
    }

    /// One chunk: its size line, the bytes, CRLF. An empty body is not framed (an empty chunk would end
    /// the body) but still written, so that its promise completes in order.
    private func writeChunk(_ body: IOData, promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) {
        let count = body.readableBytes
        guard count > 0 else {
            self.passHeld(context: context)
            context.write(self.wrapOutboundOut(body), promise: promise)
            return
        }
        var sizeLine = context.channel.allocator.buffer(capacity: 18)
        sizeLine.writeString(String(count, radix: 16))
        sizeLine.writeStaticString("\r\n")
        self.append(sizeLine, promise: nil, context: context)
        context.write(self.wrapOutboundOut(body), promise: nil)
        // The last of the three carries the promise: writes complete in order, and a failed one fails the rest.
        context.write(self.wrapOutboundOut(.byteBuffer(Self.crlf)), promise: promise)
    }

    private static let crlf = ByteBuffer(string: "\r\n")

    private static func isInterim(_ status: HTTPResponseStatus) -> Bool {
        status.code < 200 && status.code != 101
    }

    // MARK: - The head as bytes

    /// The status line, the response's prepared `own` headers, the head's headers, the defaults that neither
    /// sets, and the blank line, in one buffer of their size (with room for a small body that follows); and whether
    /// the head announces a chunked body.
    static func serialize(_ head: HTTPResponseHead, own: PreparedHeaders? = nil, defaults: DefaultHeaders,
                          allocator: ByteBufferAllocator) -> (ByteBuffer, chunked: Bool) {
        let reason = head.status.reasonPhrase
        // "HTTP/1.1 200 " + reason + CRLF, then "name: value" + CRLF per header, then CRLF.
        var size = 13 + reason.utf8.count + 2 + 2
        var chunked = false
        var bodyRoom = 0
        for (name, value) in head.headers {
            size += name.utf8.count + value.utf8.count + 4
            if ResponseHeadBuilder.sameName(name, "content-length"), let length = Int(value), length <= Self.coalescedBodyBytes {
                bodyRoom = length
            } else if ResponseHeadBuilder.sameName(name, "transfer-encoding"), ResponseHeadBuilder.sameName(value, "chunked") {
                chunked = true
            }
        }
        // An interim answer (100 Continue) is a status line alone.
        let final = !Self.isInterim(head.status)
        let own = final ? own : nil
        let ownBytes = own?.bytes
        size += ownBytes?.readableBytes ?? 0
        let defaultsBlock = final && defaults.noneSet(by: head.headers) && (own.map { defaults.noneSet(by: $0) } ?? true)
        let someDefaults = final && !defaultsBlock ? defaults.unset(by: head.headers, own: own?.headers) : HTTPHeaders()
        size += defaultsBlock ? defaults.bytes.readableBytes : Self.size(of: someDefaults)
        var buffer = allocator.buffer(capacity: size + bodyRoom)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { space in
            var at = Self.writeStatusLine(head, reason: reason, to: space)
            if let ownBytes {
                at = Self.copy(ownBytes, to: space, at: at)
            }
            at = Self.write(head.headers, to: space, at: at)
            if defaultsBlock {
                at = Self.copy(defaults.bytes, to: space, at: at)
            } else {
                at = Self.write(someDefaults, to: space, at: at)
            }
            space[at] = UInt8(ascii: "\r")
            space[at + 1] = UInt8(ascii: "\n")
            return at + 2
        }
        // A chunked body only where a body is allowed, and only for HTTP/1.1 and later.
        let chunks = chunked && ResponseHeadBuilder.allowsChunked(head.version) && head.status.mayHaveResponseBody
        return (buffer, chunks)
    }

    /// `HTTP/1.1 200 OK` and CRLF, at the start of `space`; returns its length.
    private static func writeStatusLine(_ head: HTTPResponseHead, reason: String, to space: UnsafeMutableRawBufferPointer) -> Int {
        let code = Int(head.status.code)
        space[0] = UInt8(ascii: "H")
        space[1] = UInt8(ascii: "T")
        space[2] = UInt8(ascii: "T")
        space[3] = UInt8(ascii: "P")
        space[4] = UInt8(ascii: "/")
        space[5] = Self.digit(Int(head.version.major))
        space[6] = UInt8(ascii: ".")
        space[7] = Self.digit(Int(head.version.minor))
        space[8] = UInt8(ascii: " ")
        space[9] = Self.digit(code / 100)
        space[10] = Self.digit(code / 10)
        space[11] = Self.digit(code)
        space[12] = UInt8(ascii: " ")
        var at = 13 + Self.copy(reason, to: space, at: 13)
        space[at] = UInt8(ascii: "\r")
        space[at + 1] = UInt8(ascii: "\n")
        at += 2
        return at
    }

    private static func digit(_ value: Int) -> UInt8 {
        UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
    }

    /// Each header as `name: value` and CRLF, from `offset`; returns where they end.
    private static func write(_ headers: HTTPHeaders, to space: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        var at = offset
        for (name, value) in headers {
            at += Self.copy(name, to: space, at: at)
            space[at] = UInt8(ascii: ":")
            space[at + 1] = UInt8(ascii: " ")
            at += 2
            at += Self.copy(value, to: space, at: at)
            space[at] = UInt8(ascii: "\r")
            space[at + 1] = UInt8(ascii: "\n")
            at += 2
        }
        return at
    }

    /// Headers (trailers, the defaults) each as `name: value` and CRLF, appended.
    static func write(_ headers: HTTPHeaders, into buffer: inout ByteBuffer) {
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.size(of: headers)) { space in
            Self.write(headers, to: space, at: 0)
        }
    }

    /// The bytes `write` makes of `headers`.
    private static func size(of headers: HTTPHeaders) -> Int {
        var size = 0
        for (name, value) in headers {
            size += name.utf8.count + value.utf8.count + 4
        }
        return size
    }

    /// `block`'s bytes at `offset`; returns where they end.
    private static func copy(_ block: ByteBuffer, to space: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        block.withUnsafeReadableBytes { bytes in
            UnsafeMutableRawBufferPointer(rebasing: space[offset..<(offset + bytes.count)]).copyMemory(from: bytes)
            return offset + bytes.count
        }
    }

    private static func copy(_ string: String, to space: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        var string = string
        return string.withUTF8 { utf8 in
            UnsafeMutableRawBufferPointer(rebasing: space[offset..<(offset + utf8.count)]).copyMemory(from: UnsafeRawBufferPointer(utf8))
            return utf8.count
        }
    }
}
