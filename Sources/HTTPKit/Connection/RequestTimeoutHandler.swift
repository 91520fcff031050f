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
/// It sits after `HTTPServerPipelineHandler`, so it sees a pipelined request only when that
/// request's turn comes. Raw bytes are reported by `ByteActivityHandler`, at the socket end of
/// the pipeline.
final class RequestTimeoutHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

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

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head:
            self.bytesSinceLastHead = false
            self.enter(.receivingBody, context: context)
        case .body:
            ()
        case .end:
            if self.phase == .receivingBody {
                self.enter(.processing, context: context)
            }
        }
        context.fireChannelRead(data)
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
