import Foundation
import HealthRecord
import RHExSandbox
import Synchronization
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The sync's outbound HTTP honours the usual proxy variables (libcurl reads them): `hreaderd sync`, run
/// with `http_proxy` pointing at a forward proxy written for this test, reaches the RHEx sandbox through
/// it, every request; with `NO_PROXY` naming the host, it goes direct.
@Suite("Outbound HTTP through a proxy")
struct ProxyTests {
    let dir = TemporaryDirectory("hreaderd-proxy")

    func hreaderd(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> (status: Int32, out: String, err: String) {
        var environment = ["HREADERD_STATE_DIR": dir.file("state"), "HREADERD_PASSWORD_FILE": dir.file("pw"), "TZ": "UTC",
                           "http_proxy": "", "HTTP_PROXY": "", "https_proxy": "", "HTTPS_PROXY": "", "no_proxy": "", "NO_PROXY": ""]
        environment.merge(extra) { _, new in new }
        return try await offPool { [environment] in try run(productsDirectory + "/hreaderd", arguments, environment: environment) }
    }

    @Test("a sync through http_proxy: every request goes through the proxy, in absolute form; NO_PROXY bypasses it")
    func syncThroughProxy() async throws {
        let proxy = try ForwardProxy()
        defer { proxy.stop() }
        var configuration = RHExSandbox.Configuration()
        configuration.clientSecret = "proxy-client-secret"
        configuration.users = ["family": "proxy-user-password"]
        let records = (1...3).map { SandboxRecord(id: String($0), bytes: Array(PatientRecord.record("r\($0)", name: "P\($0) Q").rhexJSON().utf8)) }
        let sandbox = RHExSandbox(configuration: configuration, records: records)
        try await sandbox.start()
        do {
            try "store password\n".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
            try "proxy-client-secret\n".write(toFile: dir.file("secret"), atomically: true, encoding: .utf8)
            try "proxy-user-password\n".write(toFile: dir.file("user"), atomically: true, encoding: .utf8)
            #expect(try await hreaderd(["init"]).status == 0)
            #expect(try await hreaderd(["source", "add", "pds", "--url", sandbox.baseURL, "--client-id", "hreaderd", "--client-secret-file",
                                        dir.file("secret"), "--username", "family", "--user-password-file", dir.file("user"),
                                        "--patients", "all"]).status == 0)
            let proxied = try await hreaderd(["sync", "pds"], environment: ["http_proxy": "http://127.0.0.1:\(proxy.port)"])
            #expect(proxied.status == 0, "\(proxied.err)")
            #expect(proxied.out.contains("3 added"))
            let targets = proxy.requestTargets
            // The token, the feed and three records, each asked of the proxy with the full URL.
            #expect(targets.count >= 5, "\(targets)")
            let origin = try #require(URL(string: sandbox.baseURL).map { "http://\($0.host ?? ""):\($0.port ?? 80)/" })
            #expect(targets.allSatisfy { $0.hasPrefix(origin) }, "\(targets)")

            let before = proxy.requestTargets.count
            let direct = try await hreaderd(["sync", "pds"], environment: ["http_proxy": "http://127.0.0.1:\(proxy.port)", "NO_PROXY": "127.0.0.1"])
            #expect(direct.status == 0, "\(direct.err)")
            #expect(proxy.requestTargets.count == before)
        } catch {
            await sandbox.stop()
            throw error
        }
        await sandbox.stop()
    }
}

/// A forward HTTP proxy for one test: reads a request in absolute form (`GET http://host:port/path
/// HTTP/1.1`), notes the target, sends it to the host in origin form with `Connection: close`, and
/// copies the answer back. One connection at a time, on a thread of its own.
final class ForwardProxy: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let targets = Mutex<[String]>([])
    private let stopping = Atomic<Bool>(false)
    private var thread: Thread?

    var requestTargets: [String] { targets.withLock { $0 } }

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) } }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve() }
        self.thread = thread
        thread.start()
    }

    func stop() {
        stopping.store(true, ordering: .releasing)
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve() {
        while !stopping.load(ordering: .acquiring) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            handle(client)
            close(client)
        }
    }

    private func handle(_ client: Int32) {
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        // The head, then as much body as Content-Length says.
        while !request.containsHeadEnd {
            let n = read(client, &buffer, buffer.count)
            guard n > 0 else { return }
            request += buffer[0..<n]
        }
        let head = String(decoding: request.prefix(request.headEnd), as: UTF8.self)
        let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        while request.count < request.headEnd + 4 + length {
            let n = read(client, &buffer, buffer.count)
            guard n > 0 else { return }
            request += buffer[0..<n]
        }
        var lines = head.components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count == 3, let url = URL(string: String(parts[1])), let host = url.host, let port = url.port else { return }
        targets.withLock { $0.append(String(parts[1])) }
        let path = url.path.isEmpty ? "/" : url.path + (url.query.map { "?" + $0 } ?? "")
        lines[0] = "\(parts[0]) \(path) \(parts[2])"
        lines = lines.filter { !$0.lowercased().hasPrefix("proxy-connection:") && !$0.lowercased().hasPrefix("connection:") }
        lines.append("Connection: close")
        let forwarded = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + request[(request.headEnd + 4)...]

        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(upstream) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return }
        _ = forwarded.withUnsafeBytes { write(upstream, $0.baseAddress, $0.count) }
        while true {
            let n = read(upstream, &buffer, buffer.count)
            guard n > 0 else { return }
            _ = buffer.withUnsafeBytes { write(client, $0.baseAddress, n) }
        }
    }
}

private extension Array where Element == UInt8 {
    var headEnd: Int {
        guard count >= 4 else { return count }
        for index in 0...(count - 4) where self[index] == 13 && self[index + 1] == 10 && self[index + 2] == 13 && self[index + 3] == 10 {
            return index
        }
        return count
    }
    var containsHeadEnd: Bool { headEnd < count }
}
