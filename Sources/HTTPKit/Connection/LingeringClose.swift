import NIOCore

/// Closing a connection after a final answer without losing that answer.
///
/// Closing a socket that still has unread request bytes makes the kernel send a reset, and a
/// reset can destroy the answer before the client reads it (a `413` for a body still in
/// flight, say). So: shut down the sending side (the client sees the answer, then end of
/// stream), keep reading and dropping what arrives, and close when the client closes or the
/// timeout passes, whichever comes first.
enum LingeringClose {
    static func close(_ channel: any Channel, within timeout: Duration) {
        let deadline = channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            channel.close(promise: nil)
        }
        channel.closeFuture.whenComplete { _ in deadline.cancel() }
        channel.close(mode: .output).whenFailure { _ in
            channel.close(promise: nil)
        }
    }
}
