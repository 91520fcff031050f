import NIOCore
import NIOHTTP1

/// Closes connections that take too long between or within requests:
///
/// - waiting for a request head: `requestHeadTimeout`, counted from the accept for the first
///   request and from the first byte for later ones (a slow-loris client trickling a head);
/// - waiting for the body once the head is in: `requestBodyTimeout`;
/// - idle between requests, no byte yet: `keepAliveTimeout`.
///
/// No timer runs here while the application works on a request: that time is the handler's.
/// (Waiting for a client to read an answer is bounded by `responseWriteTimeout`, elsewhere.)
///
/// It is told of a request's head and end by `HTTPConnectionHandler`, which sees a pipelined request
/// only when `HTTPServerPipelineHandler` lets that request's turn come, and of the answer's end; raw
/// bytes are reported by `ByteActivityHandler`, at the socket end of the pipeline. It sits at the far
/// end of the pipeline, for its timers and the connection's close alone: the requests' parts do not
/// pass through it (each part's cast out of `NIOAny` and each hop cost every request, issue 41).
final class RequestTimeoutHandler: ChannelInboundHandler {
    /// Nothing is read here (see above); the type is what would arrive.
    typealias InboundIn = HTTPServerRequestPart

    private enum Phase {
        /// Between requests, no byte of the next one seen.
        case idle
        /// Bytes of a request seen, its head not yet complete.
        case receivingHead
        case receivingBody
        /// The request is complete; the application is answering.
        case processing
    }

    private let limits: HTTPServer.Limits
    private var phase = Phase.receivingHead
    private var bytesSinceLastHead = false
    /// When the current phase times out; `nil` while processing.
    private var deadline: NIODeadline?
    /// One timer at a time, due at or before `deadline`. Phases change several times per
    /// request; moving a deadline later only updates `deadline`, and the timer, when it fires
    /// early, re-arms itself for the new deadline: far cheaper than scheduling and cancelling
    /// a timer at every phase of every request.
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?
    private var context: ChannelHandlerContext?

    init(limits: HTTPServer.Limits) {
        self.limits = limits
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // The first request's head must arrive within the head timeout from the accept.
        self.enter(.receivingHead, context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.stopTimer()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.stopTimer()
        context.fireChannelInactive()
    }

    private func stopTimer() {
        self.timer?.cancel()
        self.timer = nil
        self.timerDeadline = nil
        self.deadline = nil
    }

    /// Called by `ByteActivityHandler` for every read from the socket.
    func bytesReceived() {
        guard let context = self.context else { return }
        switch self.phase {
        case .idle:
            self.enter(.receivingHead, context: context)
        case .receivingBody, .processing:
            // Part of a pipelined request: its head timer starts when its turn comes.
            self.bytesSinceLastHead = true
        case .receivingHead:
            ()  // the head timer keeps running: trickling bytes does not extend it
        }
    }

    /// A request's head is complete: its body's time starts.
    func headReceived() {
        guard let context = self.context else { return }
        self.bytesSinceLastHead = false
        self.enter(.receivingBody, context: context)
    }

    /// A request is complete: no timer runs while it is answered.
    func requestReceived() {
        guard let context = self.context, self.phase == .receivingBody else { return }
        self.enter(.processing, context: context)
    }

    /// Called by `HTTPConnectionHandler` just before it writes an answer's `.end`: the next phase is set
    /// before that write, which lets the pipeline handler deliver a buffered next request at once, and
    /// its head must find the timers already switched. (A call, not a look at every outbound part: each
    /// answer's three parts would otherwise pass through this handler too.)
    func answerEnding() {
        guard let context = self.context, self.phase == .processing else { return }
        self.enter(self.bytesSinceLastHead ? .receivingHead : .idle, context: context)
    }

    private func enter(_ phase: Phase, context: ChannelHandlerContext) {
        self.phase = phase
        switch phase {
        case .idle: self.deadline = .now() + TimeAmount(self.limits.keepAliveTimeout)
        case .receivingHead: self.deadline = .now() + TimeAmount(self.limits.requestHeadTimeout)
        case .receivingBody: self.deadline = .now() + TimeAmount(self.limits.requestBodyTimeout)
        case .processing: self.deadline = nil
        }
        if let deadline = self.deadline, self.timerDeadline.map({ $0 > deadline }) ?? true {
            self.arm(at: deadline, context: context)
        }
    }

    private func arm(at deadline: NIODeadline, context: ChannelHandlerContext) {
        self.timer?.cancel()
        self.timerDeadline = deadline
        let loopBoundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        let loopBoundContext = context.loopBound
        self.timer = context.eventLoop.scheduleTask(deadline: deadline) {
            loopBoundSelf.value.timerFired(context: loopBoundContext.value)
        }
    }

    private func timerFired(context: ChannelHandlerContext) {
        self.timer = nil
        self.timerDeadline = nil
        guard self.context != nil, let deadline = self.deadline else { return }  // removed, or processing
        if deadline <= .now() {
            context.close(promise: nil)
        } else {
            self.arm(at: deadline, context: context)
        }
    }
}

/// Tells the `RequestTimeoutHandler` about every read, before HTTP decoding, so that it can
/// tell an idle connection from one that is sending a request.
final class ByteActivityHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let timeouts: RequestTimeoutHandler

    init(reportingTo timeouts: RequestTimeoutHandler) {
        self.timeouts = timeouts
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.timeouts.bytesReceived()
        context.fireChannelRead(data)
    }
}
