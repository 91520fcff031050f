import NIOConcurrencyHelpers
import NIOCore

/// Lets handler tasks hop back to their event loop only while the loops are running.
///
/// A handler that outlives its connection (it ignored cancellation) finishes after shutdown
/// has stopped the event loops; scheduling onto a stopped loop is an error in NIO. Shutdown
/// closes the gate, under the same lock, before it stops the loops.
final class EventLoopGate: Sendable {
    private let open = NIOLockedValueBox(true)

    func execute(on eventLoop: any EventLoop, _ work: @escaping @Sendable () -> Void) {
        self.open.withLockedValue { open in
            if open { eventLoop.execute(work) }
        }
    }

    func close() {
        self.open.withLockedValue { $0 = false }
    }
}
