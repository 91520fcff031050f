import Logging
import NIOCore
import NIOHTTP1

/// The pipeline of every accepted connection, in one place. Inbound, from the socket:
///
/// 1. `ByteActivityHandler`: reports raw reads to the timeouts;
/// 2. `ResponseEncoder` (outbound: responses as bytes; the product's own, see there why) and NIO's
///    request decoder (with the header limits, which end in `431`);
/// 3. NIO's `HTTPServerPipelineHandler`: one request at a time, pipelined ones held back,
///    graceful quiescing;
/// 4. `HTTPConnectionHandler`: requests in, the application, responses out;
/// 5. `RequestTimeoutHandler`: head, body and keep-alive timeouts, its timers and the close. No request
///    passes through it: the connection handler tells it of each head, each end and each answer's end.
///
/// No CR/LF injection into responses: `HTTPConnectionHandler` checks each response's headers before
/// writing its head (`ResponseHeadBuilder.isValid`), and the builder adds only its own and the default
/// headers, checked once. NIO's response header validator, a handler that checked every head again, is
/// added only when the default headers are not valid.
enum HTTPChannelSetup {
    static func configure(_ channel: any Channel, settings: ConnectionSettings, registry: ConnectionRegistry, overCapacityAnswer: ByteBuffer) throws {
        let pipeline = channel.pipeline.syncOperations
        switch registry.admit(channel) {
        case .admitted:
            var decoderLimits = NIOHTTPDecoderLimitConfiguration()
            decoderLimits.maxHeaderListSize = settings.limits.maxHeaderBytes
            decoderLimits.maxHeaderFieldSize = settings.limits.maxHeaderBytes
            decoderLimits.maxHeaderFieldCount = settings.limits.maxHeaderCount
            let timeouts = RequestTimeoutHandler(limits: settings.limits)
            var handlers: [any ChannelHandler] = [
                ByteActivityHandler(reportingTo: timeouts),
                ResponseEncoder(),
                // HTTPConnectionHandler answers parser errors itself (400 or 431).
                ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: decoderLimits)),
                HTTPServerPipelineHandler(),
            ]
            if !settings.headBuilder.defaultHeadersAreValid {
                handlers.append(NIOHTTPResponseHeadersValidator())
            }
            handlers.append(HTTPConnectionHandler(settings: settings, timeouts: timeouts))
            handlers.append(timeouts)
            try pipeline.addHandlers(handlers)
        case .overLimit, .draining:
            try pipeline.addHandler(
                OverCapacityHandler(answer: overCapacityAnswer, lingeringTimeout: settings.limits.lingeringCloseTimeout))
        }
    }
}

/// The settings every connection of one server shares.
struct ConnectionSettings: Sendable {
    let limits: HTTPServer.Limits
    let responder: Responder
    let headBuilder: ResponseHeadBuilder
    let accessLog: AccessLog
    let logger: Logger
    let loopGate: EventLoopGate
}
