import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The sd_notify(3) protocol, written out: datagrams like `READY=1` to the socket named by
/// `$NOTIFY_SOCKET` (a path, or an abstract name starting with `@`). No libsystemd needed. When the
/// variable is absent (not under systemd), every call does nothing.
final class SystemdNotifier: Sendable {
    private let address: sockaddr_un?
    private let addressLength: socklen_t
    private let descriptor: Int32

    init(environment: [String: String]) {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty,
              path.hasPrefix("/") || path.hasPrefix("@"), path.utf8.count < 108 else {
            address = nil
            addressLength = 0
            descriptor = -1
            return
        }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 } // abstract namespace
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
        }
        address = addr
        addressLength = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    var isActive: Bool { address != nil && descriptor >= 0 }

    /// Sends one notification (`READY=1`, `STATUS=…`, `WATCHDOG=1`, `STOPPING=1`); failures are ignored,
    /// as sd_notify's are: the service must not die because the manager went away.
    func send(_ message: String) {
        guard var address, descriptor >= 0 else { return }
        let bytes = Array(message.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddrPointer in
                bytes.withUnsafeBytes { raw in
                    sendto(descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), sockaddrPointer, addressLength)
                }
            }
        }
    }

    /// The watchdog interval systemd expects (`$WATCHDOG_USEC`), when it is meant for this process.
    static func watchdogInterval(environment: [String: String], processID: Int32 = getpid()) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0 else { return nil }
        if let pid = environment["WATCHDOG_PID"], Int32(pid) != processID { return nil }
        return .microseconds(Int64(min(usec, UInt64(Int64.max))))
    }
}
