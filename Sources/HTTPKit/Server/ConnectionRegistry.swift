import NIOConcurrencyHelpers
import NIOCore

/// The open connections of one server, over all listeners and event loops: counted for the
/// connection limit, and kept so that shutdown can ask each one to finish.
final class ConnectionRegistry: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var draining = false
    }

    private let state = NIOLockedValueBox(State())
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    enum Admission {
        case admitted
        case overLimit
        case draining
    }

    /// Counts `channel` in, unless the server is full or shutting down. An admitted channel is
    /// counted out when it closes.
    func admit(_ channel: any Channel) -> Admission {
        let admission = self.state.withLockedValue { state -> Admission in
            if state.draining { return .draining }
            if state.channels.count >= self.limit { return .overLimit }
            state.channels[ObjectIdentifier(channel)] = channel
            return .admitted
        }
        if case .admitted = admission {
            channel.closeFuture.whenComplete { [weak self] _ in
                self?.state.withLockedValue { _ = $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
            }
        }
        return admission
    }

    var count: Int {
        self.state.withLockedValue { $0.channels.count }
    }

    /// Refuses new connections from now on, and returns the open ones.
    func beginDraining() -> [any Channel] {
        self.state.withLockedValue { state in
            state.draining = true
            return Array(state.channels.values)
        }
    }

    var openChannels: [any Channel] {
        self.state.withLockedValue { Array($0.channels.values) }
    }
}
