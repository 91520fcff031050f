import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import ImportJobs

/// Asks the daemon's own listener for `/healthz`, the way a client would: an answer proves that the
/// event loops accept, read and respond. Runs on a thread of its own (it blocks on a socket).
enum HealthProbe {
    static let timeoutSeconds = 2

    /// True when `GET /healthz` on 127.0.0.1:`port` answers 200 within the timeout.
    static func check(port: Int) async -> Bool {
        await withCheckedContinuation { continuation in
            DetachedThread.start(named: "health-probe") { continuation.resume(returning: probe(port: port)) }
        }
    }

    private static func probe(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7f00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return false }
        let request = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else { return false }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n >= 12 else { return false }
        return String(decoding: buffer[0..<12], as: UTF8.self) == "HTTP/1.1 200"
    }
}
