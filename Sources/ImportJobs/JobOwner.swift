#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who holds a running job's lease: `host:pid:nonce`. A process that finds a job held by a process of
/// its own host that no longer exists takes it over at once, instead of waiting for the lease to lapse
/// (what it does for any other holder: another host sharing the state directory, a reused pid).
enum JobOwner {
    static func make() -> String {
        var nonce = SystemRandomNumberGenerator()
        let suffix = String(nonce.next() & 0xff_ffff, radix: 16)
        return "\(hostName):\(getpid()):\(suffix)"
    }

    static let hostName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }()

    /// Whether `owner` names a process of this host that has exited (and been reaped).
    static func isDeadProcessOnThisHost(_ owner: String) -> Bool {
        let parts = owner.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 3, let pid = Int32(parts[parts.count - 2]), pid > 0 else { return false }
        let host = parts.dropLast(2).joined(separator: ":")
        guard host == hostName, pid != getpid() else { return false }
        return kill(pid, 0) == -1 && errno == ESRCH
    }
}
