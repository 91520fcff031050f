#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import NIOCore
import NIOHTTP1

/// The heart of a connection: collects each request's parts into a `Request` (enforcing the
/// route's body limit as the bytes arrive), runs the application on the Swift concurrency pool,
/// off the event loop (unless the route asked to start on it), and writes the `Response` back
/// on the loop.
///
/// One request at a time: `HTTPServerPipelineHandler`, in front, stops reading and holds
/// pipelined requests back until the previous response is written, so answers go out in order.
/// And a request is not started while the client leaves earlier answers unread (the channel is
/// not writable), so that pipelining large answers cannot pile them up in memory; after
/// `responseWriteTimeout` of that, the connection is closed.
final class HTTPConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// What is known of one request for answering and logging it.
    private struct Exchange: Sendable {
        var method: HTTPMethod?
        var version: HTTPVersion
        var path: String?
        var keepAlive: Bool
        let start: NIODeadline
    }

    /// A class: the state moves it from phase to phase with one reference, not a copy of each of its parts.
    private final class Receiving {
        let exchange: Exchange
        let head: HTTPRequestHead
        let target: RequestTarget
        let resolution: RouteResolution
        let bodyLimit: Int
        var body: ByteBuffer?

        init(exchange: Exchange, head: HTTPRequestHead, target: RequestTarget, resolution: RouteResolution, bodyLimit: Int) {
            self.exchange = exchange
            self.head = head
            self.target = target
            self.resolution = resolution
            self.bodyLimit = bodyLimit
        }
    }

    private enum State {
        case idle
        case receiving(Receiving)
        /// Complete, but held until the client reads what was already sent.
        case waitingToStart(Receiving)
        case responding(Exchange, Task<Void, Never>?)
        /// An answer that ends the connection has been written; everything else is dropped.
        case closing
    }

    private let settings: ConnectionSettings
    private let timeouts: RequestTimeoutHandler
    /// This connection's encoder, told of a response's prepared headers just before their head is written.
    private let encoder: ResponseEncoder
    private var state = State.idle
    private var writeTimer: Scheduled<Void>?
    private var requestsSeen = 0
    /// The `Date` header value, formatted once per second rather than once per response.
    private var date = (second: 0, text: "")
    /// The connection's two addresses, asked of the channel (behind its lock) once, not per request.
    private var addresses: (peer: SocketAddress?, local: SocketAddress?)?

    init(settings: ConnectionSettings, timeouts: RequestTimeoutHandler, encoder: ResponseEncoder) {
        self.settings = settings
        self.timeouts = timeouts
        self.encoder = encoder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The timeouts hear of a part before it is handled: handling an end can answer at once, and the
        // answer's end moves them on only from the phase the request's end puts them in.
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            self.timeouts.headReceived()
            self.receiveHead(head, context: context)
        case .body(let buffer):
            self.receiveBody(buffer, context: context)
        case .end:
            self.timeouts.requestReceived()
            self.receiveEnd(context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case .closing = self.state {
            return  // a final answer is out; the lingering close ends the connection
        }
        guard let parserError = error as? HTTPParserError else {
            // I/O errors (a reset, say): nothing can be answered.
            context.close(promise: nil)
            return
        }
        // A malformed request: the decoder stops here, so answer if no answer has started, and close.
        let exchange: Exchange
        switch self.state {
        case .idle:
            exchange = Exchange(method: nil, version: .http1_1, path: nil, keepAlive: false, start: .now())
        case .receiving(let receiving):
            exchange = receiving.exchange
        case .waitingToStart, .responding, .closing:
            context.close(promise: nil)
            return
        }
        let answer = parserError == .headerOverflow ? HTTPError.headersTooLarge : Self.malformed
        self.write(answer.response, exchange: exchange, endsConnection: true, context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if case .responding(_, let task) = self.state {
            // Nobody will read the answer: let a cooperative handler stop early.
            task?.cancel()
        }
        self.writeTimer?.cancel()
        self.writeTimer = nil
        self.state = .closing
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, case .waitingToStart(let receiving) = self.state {
            self.writeTimer?.cancel()
            self.writeTimer = nil
            self.start(receiving, context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    private static let malformed = HTTPError.badRequest("The request is not valid HTTP/1.1.", code: "bad_request")

    // MARK: - Receiving

    private func receiveHead(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        guard case .idle = self.state else { return }
        self.requestsSeen += 1
        var exchange = Exchange(
            method: head.method,
            version: head.version,
            path: nil,  // the parsed target's, or (for a refused one) the request line's up to `?`
            keepAlive: head.isKeepAlive && self.requestsSeen < self.settings.limits.maxRequestsPerConnection,
            start: .now()
        )
        do throws(HTTPError) {
            let target: RequestTarget
            let declaredLength: Int?
            do throws(HTTPError) {
                declaredLength = try RequestHeadValidation.validate(head)
                target = try RequestTarget(parsing: head.uri)
            } catch {
                exchange.path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
                throw error
            }
            exchange.path = target.path
            let resolution = self.settings.responder.resolve(method: head.method, segments: target.segments)
            let bodyLimit = resolution.bodyLimit ?? self.settings.limits.maxBodyBytes
            if let declaredLength, declaredLength > bodyLimit {
                throw HTTPError.payloadTooLarge
            }
            try self.meetExpectation(head, context: context)
            self.state = .receiving(
                Receiving(exchange: exchange, head: head, target: target, resolution: resolution, bodyLimit: bodyLimit))
        } catch {
            self.write(error.response, exchange: exchange, endsConnection: true, context: context)
        }
    }

    /// `Expect: 100-continue` asks whether to send the body: yes, now that the head passed.
    private func meetExpectation(_ head: HTTPRequestHead, context: ChannelHandlerContext) throws(HTTPError) {
        guard let expectation = head.headers.first(name: "expect") else { return }
        guard expectation.lowercased() == "100-continue" else {
            throw HTTPError(.expectationFailed, code: "bad_expectation", message: "Only 100-continue is supported.")
        }
        if head.version.minor >= 1 {
            let interim = HTTPResponseHead(version: head.version, status: .continue)
            context.writeAndFlush(self.wrapOutboundOut(.head(interim)), promise: nil)
        }
    }

    private func receiveBody(_ buffer: ByteBuffer, context: ChannelHandlerContext) {
        guard case .receiving(let receiving) = self.state else { return }
        let size = (receiving.body?.readableBytes ?? 0) + buffer.readableBytes
        guard size <= receiving.bodyLimit else {
            self.state = .closing
            self.write(HTTPError.payloadTooLarge.response, exchange: receiving.exchange, endsConnection: true, context: context)
            return
        }
        if receiving.body == nil {
            receiving.body = buffer
        } else {
            receiving.body!.writeImmutableBuffer(buffer)  // in place: the body has no other reference
        }
    }

    private func receiveEnd(context: ChannelHandlerContext) {
        guard case .receiving(let receiving) = self.state else { return }
        guard context.channel.isWritable else {
            self.state = .waitingToStart(receiving)
            let channel = context.channel
            self.writeTimer = context.eventLoop.scheduleTask(in: TimeAmount(self.settings.limits.responseWriteTimeout)) {
                channel.close(promise: nil)
            }
            return
        }
        self.start(receiving, context: context)
    }

    /// Runs the application for a complete request.
    private func start(_ receiving: Receiving, context: ChannelHandlerContext) {
        let request = Request(
            method: receiving.head.method,
            path: receiving.target.path,
            pathSegments: receiving.target.segments,
            query: receiving.target.query,
            rawQuery: receiving.target.rawQuery,
            headers: receiving.head.headers,
            version: receiving.head.version,
            body: receiving.body ?? ByteBuffer()
        )
        let addresses = self.addresses ?? (context.channel.remoteAddress, context.channel.localAddress)
        self.addresses = addresses
        let responder = self.settings.responder
        let resolution = receiving.resolution
        if resolution.answersImmediately {
            var immediateContext = RequestContext(peerAddress: addresses.peer, localAddress: addresses.local, logger: self.settings.logger)
            if let response = responder.respondImmediately(to: request, context: &immediateContext, resolution: resolution) {
                // Answered on the loop, with no task: written now, as the last thing this call does (the write
                // of `.end` may hand this handler the next pipelined request at once).
                self.state = .responding(receiving.exchange, nil)
                self.deliver(response, context: context)
                return
            }
        }
        // A context of its own: the immediate steps may have filled theirs before one of them gave no answer.
        let requestContext = RequestContext(peerAddress: addresses.peer, localAddress: addresses.local, logger: self.settings.logger)
        let gate = self.settings.loopGate
        let eventLoop = context.eventLoop
        let loopBoundSelf = NIOLoopBound(self, eventLoop: eventLoop)
        let loopBoundContext = context.loopBound
        self.state = .responding(receiving.exchange, nil)
        let work: @Sendable () async -> Void = {
            let response = await responder.respond(to: request, context: requestContext, resolution: resolution)
            // Always through the loop's queue, even from the loop: a synchronous write here
            // could re-enter this handler with the next pipelined request.
            gate.execute(on: eventLoop) {
                loopBoundSelf.value.deliver(response, context: loopBoundContext.value)
            }
        }
        let task = resolution.startsOnEventLoop ? Task.immediate(operation: work) : Task(operation: work)
        self.state = .responding(receiving.exchange, task)
    }

    // MARK: - Answering

    /// Back on the event loop with the application's answer.
    private func deliver(_ response: Response, context: ChannelHandlerContext) {
        guard case .responding(let exchange, _) = self.state else { return }  // closed meanwhile
        self.write(response, exchange: exchange, endsConnection: false, context: context)
    }

    /// Writes `response` for `exchange`. With `endsConnection` (an early or error answer) or
    /// without keep-alive, the connection is then closed.
    private func write(_ response: Response, exchange: Exchange, endsConnection: Bool, context: ChannelHandlerContext) {
        var response = response
        // Prepared headers were checked when they were made.
        if response.prepared == nil, !ResponseHeadBuilder.isValid(response.headers) {
            self.settings.logger.error("a handler set an invalid header name or value; answering 500")
            response = HTTPError.internalServerError.response
        }
        let keepAlive = exchange.keepAlive && !endsConnection
            && ResponseHeadBuilder.keepsAlive(after: response.body, version: exchange.version)
        let sendsBody = exchange.method != .HEAD && !ResponseHeadBuilder.forbidsBody(response.status)
        if !sendsBody, case .stream(let stream) = response.body {
            stream.finished(false)  // never asked for: what it holds can go
        }

        let now = Int(time(nil))
        if now != self.date.second {
            self.date = (now, HTTPDate.format(epochSeconds: now))
        }
        let head = ResponseHeadBuilder.head(
            for: response, version: exchange.version, keepAlive: keepAlive, date: self.date.text, answersHEAD: exchange.method == .HEAD)
        self.encoder.preparedHeaders = response.prepared  // the head below takes them (`ResponseHeadBuilder.head`)
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        guard sendsBody else {
            self.finish(exchange, status: response.status, bytes: 0, keepAlive: keepAlive, context: context)
            return
        }
        switch response.body {
        case .empty:
            self.finish(exchange, status: response.status, bytes: 0, keepAlive: keepAlive, context: context)
        case .bytes(let buffer):
            if buffer.readableBytes > 0 {
                context.write(self.wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            }
            self.finish(exchange, status: response.status, bytes: buffer.readableBytes, keepAlive: keepAlive, context: context)
        case .file(let file):
            // Several turns of the event loop: the request stays `responding` until `.end`.
            context.flush()
            let status = response.status
            let writer = FileBodyWriter(
                file: file,
                context: context,
                gate: self.settings.loopGate,
                writeTimeout: self.settings.limits.responseWriteTimeout
            ) { complete in
                guard complete else { return }  // the connection is being closed
                self.finish(exchange, status: status, bytes: file.size, keepAlive: keepAlive, context: context)
            }
            writer.start()
        case .stream(let stream):
            context.flush()
            let status = response.status
            let writer = StreamBodyWriter(
                stream: stream,
                context: context,
                gate: self.settings.loopGate,
                writeTimeout: self.settings.limits.responseWriteTimeout
            ) { complete, bytes in
                guard complete else { return }  // the connection is being closed
                self.finish(exchange, status: status, bytes: bytes, keepAlive: keepAlive, context: context)
            }
            writer.start()
        }
    }

    /// An answer with a body up to this size is logged when handed over; a larger one once written, so
    /// that its line's time includes a slow client's reading.
    static let loggedAtHandOverBytes = ResponseEncoder.coalescedBodyBytes

    /// Ends the response, logs it, and closes the connection unless it is kept alive.
    private func finish(_ exchange: Exchange, status: HTTPResponseStatus, bytes: Int, keepAlive: Bool, context: ChannelHandlerContext) {
        // Change state before writing `.end`: that write lets HTTPServerPipelineHandler hand us
        // the next pipelined request at once.
        self.state = keepAlive ? .idle : .closing
        self.timeouts.answerEnding()
        guard !keepAlive || (self.settings.accessLog.isEnabled && bytes > Self.loggedAtHandOverBytes) else {
            // Nothing to wait for: a small answer goes down with its end in one write (`ResponseEncoder`),
            // so it is logged as it is handed over (before, so that pipelined answers log in order), sparing
            // every request a promise, its future and a callback.
            self.settings.accessLog.record(method: exchange.method, path: exchange.path, status: status, bytes: bytes, since: exchange.start)
            context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
            return
        }
        let accessLog = self.settings.accessLog
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: written)
        let lingeringTimeout = self.settings.limits.lingeringCloseTimeout
        let channel = context.channel
        written.futureResult.whenComplete { _ in
            accessLog.record(method: exchange.method, path: exchange.path, status: status, bytes: bytes, since: exchange.start)
            if !keepAlive {
                LingeringClose.close(channel, within: lingeringTimeout)
            }
        }
    }
}
