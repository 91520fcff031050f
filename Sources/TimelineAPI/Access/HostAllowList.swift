import HTTPKit
import Synchronization

/// The Host names (with port) a request may carry, and so the Origins a state-changing request may come
/// from. A browser that was tricked into resolving `evil.example` to 127.0.0.1 (DNS rebinding) still
/// sends `Host: evil.example`, which is refused.
public final class HostAllowList: Sendable {
    private let hosts = Mutex<Set<String>>([])

    public init() {}

    /// Allows the loopback names and `extraNames` on each of `ports`.
    public func allow(ports: [Int], extraNames: [String] = []) {
        var names: Set<String> = ["localhost", "127.0.0.1", "[::1]"]
        for name in extraNames where !name.isEmpty && name != "0.0.0.0" && name != "::" {
            names.insert(name.contains(":") && !name.hasPrefix("[") ? "[\(name.lowercased())]" : name.lowercased())
        }
        hosts.withLock { hosts in
            for port in ports {
                for name in names { hosts.insert("\(name):\(port)") }
            }
            // Port 80 may be left out of Host; a Unix-socket client (curl --unix-socket) sends a bare name.
            for name in names { hosts.insert(name) }
        }
    }

    public func allows(host: String) -> Bool {
        // Clients send the name as it was typed, nearly always in lower case: found as sent, it is not lowered
        // (a new string on every request).
        hosts.withLock { $0.contains(host) || $0.contains(host.lowercased()) }
    }

    /// `http://host:port` for an allowed host.
    public func allows(origin: String) -> Bool {
        let lower = origin.lowercased()
        guard lower.hasPrefix("http://") else { return false }
        return allows(host: String(lower.dropFirst("http://".count)))
    }
}
