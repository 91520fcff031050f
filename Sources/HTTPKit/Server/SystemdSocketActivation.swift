#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The sockets that systemd passed to this process (`sd_listen_fds(3)`): `LISTEN_PID` names
/// this process and `LISTEN_FDS` counts descriptors from 3 on.
public enum SystemdSocketActivation {
    /// The first descriptor systemd passes (`SD_LISTEN_FDS_START`).
    public static let firstDescriptor: Int32 = 3

    public enum ActivationError: Error, Equatable {
        case malformed(variable: String, value: String)
        case notASocket(descriptor: Int32)
        case notListening(descriptor: Int32)
    }

    /// The inherited listeners, or `[]` when the variables are absent or meant for another
    /// process (a parent that did not clear them). Each descriptor is checked to be a listening
    /// stream socket and marked close-on-exec, so that child processes do not inherit it.
    ///
    /// The caller should remove `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES` from its
    /// environment afterwards, as `sd_listen_fds(1)` does.
    public static func listeners(
        environment: [String: String],
        processID: Int32 = getpid()
    ) throws(ActivationError) -> [Listener] {
        try listeners(environment: environment, processID: processID, startingAt: firstDescriptor)
    }

    /// As above, with the first descriptor given (tests cannot own descriptor 3).
    static func listeners(
        environment: [String: String],
        processID: Int32,
        startingAt firstDescriptor: Int32
    ) throws(ActivationError) -> [Listener] {
        guard let pidText = environment["LISTEN_PID"] else { return [] }
        guard let pid = Int32(pidText), pid > 0 else { throw .malformed(variable: "LISTEN_PID", value: pidText) }
        guard pid == processID else { return [] }
        let countText = environment["LISTEN_FDS"] ?? ""
        guard let count = Int32(countText), count >= 0, count <= 1024 else {
            throw .malformed(variable: "LISTEN_FDS", value: countText)
        }
        var listeners: [Listener] = []
        for descriptor in firstDescriptor..<(firstDescriptor + count) {
            try checkListeningSocket(descriptor)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            listeners.append(.inherited(descriptor: descriptor))
        }
        return listeners
    }

    static func checkListeningSocket(_ descriptor: Int32) throws(ActivationError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw .notASocket(descriptor: descriptor)
        }
        var accepting: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length) == 0, accepting != 0 else {
            throw .notListening(descriptor: descriptor)
        }
    }
}
