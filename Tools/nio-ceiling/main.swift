// A measuring stick for issue 41's `page=year` target (0.8 of nginx): how many requests a second a
// SwiftNIO server can answer on this machine at all, with one fixed answer (the bytes of a real
// `page=year` response, head and body, read from a file) and nothing else to do. Each layer adds one
// part of what hreaderd's HTTP server is made of:
//
//   socket    NIO's event loops and sockets; no HTTP parsing (a request is counted at its blank line);
//   decoder   and NIO's request decoder and pipelining handler, as HTTPKit has them; the answer goes
//             down as the prebuilt bytes (HTTPKit writes its own heads too, `ResponseEncoder`);
//   nio       and NIO's own response encoder, the head built from HTTPHeaders: idiomatic NIO.
//
// Not the product, and never run by the tests: `bench/perf/nio-ceiling.py` runs it beside nginx and
// hreaderd, in alternating rounds.
//
//   nio-ceiling --layer socket|decoder|nio --answer FILE [--port 8090] [--threads N]
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

enum Layer: String {
    case socket, decoder, nio
}

struct Options {
    var layer = Layer.decoder
    var answerPath = ""
    var port = 8090
    var threads = System.coreCount

    init(_ arguments: [String]) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--layer":
                guard let value = rest.popFirst(), let layer = Layer(rawValue: value) else { fail("--layer: socket, decoder or nio") }
                self.layer = layer
            case "--answer": self.answerPath = rest.popFirst() ?? ""
            case "--port": self.port = rest.popFirst().flatMap { Int($0) } ?? self.port
            case "--threads": self.threads = rest.popFirst().flatMap { Int($0) } ?? self.threads
            default: fail("unknown argument \(argument)")
            }
        }
        if answerPath.isEmpty { fail("--answer FILE is required (a whole HTTP response: head, blank line, body)") }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("nio-ceiling: \(message)\n".utf8))
    exit(2)
}

/// The answer as bytes, and as NIO's parts: status, headers and body.
struct Answer: Sendable {
    let bytes: [UInt8]
    let head: HTTPResponseHead
    let body: [UInt8]

    init(path: String) {
        guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
        let bytes = Array(data)
        let blank: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4, let end = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<$0 + 4]) == blank }) else {
            fail("\(path) has no blank line after its head")
        }
        self.bytes = bytes
        body = Array(bytes[(end + 4)...])
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        head = HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)
    }
}

/// `socket`: the answer written once for each blank line read.
final class SocketLayerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let answer: ByteBuffer
    /// How much of CR LF CR LF the last bytes read have matched.
    private var matched = 0

    init(answer: ByteBuffer) { self.answer = answer }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var answers = 0
        unwrapInboundIn(data).withUnsafeReadableBytes { bytes in
            for byte in bytes {
                switch (matched, byte) {
                case (0, 13), (2, 13), (1, 10): matched += 1
                case (3, 10): matched = 0; answers += 1
                default: matched = byte == 13 ? 1 : 0
                }
            }
        }
        for _ in 0..<answers { context.write(wrapOutboundOut(answer), promise: nil) }
    }

    func channelReadComplete(context: ChannelHandlerContext) { context.flush() }
}

/// `decoder`: below NIO's pipelining handler, each response's parts become the prebuilt bytes at its end.
final class PrebuiltAnswerEncoder: ChannelOutboundHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = ByteBuffer

    let answer: ByteBuffer

    init(answer: ByteBuffer) { self.answer = answer }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            context.write(wrapOutboundOut(answer), promise: promise)
        } else {
            promise?.succeed(())
        }
    }
}

/// `decoder` and `nio`: the answer to each request, at its end.
final class AnswerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let head: HTTPResponseHead
    let body: ByteBuffer

    init(head: HTTPResponseHead, body: ByteBuffer) {
        self.head = head
        self.body = body
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) { context.flush() }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let answer = Answer(path: options.answerPath)
let group = MultiThreadedEventLoopGroup(numberOfThreads: options.threads)
let bootstrap = ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            let allocator = channel.allocator
            switch options.layer {
            case .socket:
                try pipeline.addHandler(SocketLayerHandler(answer: allocator.buffer(bytes: answer.bytes)))
            case .decoder:
                try pipeline.addHandlers([
                    PrebuiltAnswerEncoder(answer: allocator.buffer(bytes: answer.bytes)),
                    ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)),
                    HTTPServerPipelineHandler(),
                    AnswerHandler(head: answer.head, body: allocator.buffer(bytes: answer.body)),
                ])
            case .nio:
                try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: false)
                try pipeline.addHandler(AnswerHandler(head: answer.head, body: allocator.buffer(bytes: answer.body)))
            }
        }
    }
do {
    let channel = try bootstrap.bind(host: "127.0.0.1", port: options.port).wait()
    print("nio-ceiling: \(options.layer.rawValue) on http://127.0.0.1:\(options.port)/, \(options.threads) event loops")
    try channel.closeFuture.wait()
} catch {
    fail("\(error)")
}
