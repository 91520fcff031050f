import Logging
import NIOCore
import NIOHTTP1

/// The pipeline of every accepted connection, in one place. Inbound, from the socket:
///
/// 1. `ByteActivityHandler`: reports raw reads to the timeouts;
/// 2. `ResponseEncoder` (outbound: responses as bytes, the default headers added; the product's own, see
///    there why) and NIO's request decoder (with the header limits, which end in `431`);
/// 3. NIO's `HTTPServerPipelineHandler`: one request at a time, pipelined ones held back,
///    graceful quiescing;
/// 4. `HTTPConnectionHandler`: requests in, the application, responses out;
/// 5. `RequestTimeoutHandler`: head, body and keep-alive timeouts, its timers and the close. No request
///    passes through it: the connection handler tells it of each head, each end and each answer's end.
///
/// No CR/LF injection into responses: `HTTPConnectionHandler` checks each response's headers before
/// writing its head (`ResponseHeadBuilder.isValid`); the builder adds only its own, and the encoder the
/// default headers, checked once before the server starts. So the pipeline needs no validator of its own
/// (NIO's checked every head again).
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
            let encoder = ResponseEncoder(defaultHeaders: settings.defaultHeaders)
            try pipeline.addHandlers([
                ByteActivityHandler(reportingTo: timeouts),
                encoder,
                // HTTPConnectionHandler answers parser errors itself (400 or 431).
                ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: decoderLimits)),
                HTTPServerPipelineHandler(),
                HTTPConnectionHandler(settings: settings, timeouts: timeouts, encoder: encoder),
                timeouts,
            ])
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
    let defaultHeaders: DefaultHeaders
    let accessLog: AccessLog
    let logger: Logger
    let loopGate: EventLoopGate
}
