import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The service as systemd runs it, checked with systemd's own tools (no systemd as PID 1 needed).
@Suite("systemd service", .serialized)
struct SystemdTests {
    let dir = TemporaryDirectory("hreaderd-systemd")
    var state: String { dir.file("state") }
    static var repository: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    func initStore(password: String = "unit pw") throws {
        try (password + "\n").write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        let created = try run(productsDirectory + "/hreaderd", ["init", "--state-dir", state, "--password-file", dir.file("pw")])
        #expect(created.status == 0, "\(created.err)")
    }

    /// The units with ExecStart pointing at the binary under test.
    func stagedUnits() throws -> (service: String, socket: String) {
        let service = dir.file("hreaderd.service"), socket = dir.file("hreaderd.socket")
        let text = try String(contentsOfFile: Self.repository + "/systemd/hreaderd.service", encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/hreaderd", with: productsDirectory + "/hreaderd")
        try text.write(toFile: service, atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: Self.repository + "/systemd/hreaderd.socket", toPath: socket)
        return (service, socket)
    }

    @Test("systemd-analyze verify accepts the service and the socket", .enabled(if: which("systemd-analyze") != nil, "needs systemd-analyze"))
    func verify() throws {
        let units = try stagedUnits()
        let result = try run(which("systemd-analyze")!, ["verify", units.service, units.socket])
        #expect(result.status == 0, "\(result.out)\(result.err)")
        #expect(result.err.isEmpty, "\(result.err)")
    }

    @Test("systemd-analyze security rates the service 2.0 or lower", .enabled(if: which("systemd-analyze") != nil, "needs systemd-analyze"))
    func securityScore() throws {
        let units = try stagedUnits()
        let result = try run(which("systemd-analyze")!, ["security", "--offline=true", "--no-pager", units.service])
        let line = try #require(result.out.split(separator: "\n").first { $0.contains("Overall exposure level") })
        let score = try #require(line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) })
        print("systemd-analyze security: hreaderd.service exposure \(score)")
        #expect(score <= 2.0, "\(line)")
    }

    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7f00_0001).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test("under systemd-socket-activate the daemon adopts the inherited socket, and curl uses it",
          .enabled(if: which("systemd-socket-activate") != nil && which("curl") != nil, "needs systemd-socket-activate and curl"))
    func socketActivation() throws {
        try initStore()
        let port = Self.freePort()
        // Started through a shell in the background, so that this process does not track it as a child:
        // systemd-socket-activate execs hreaderd in its place, and we stop it by pid.
        let log = dir.file("activate.log")
        let command = [which("systemd-socket-activate")!, "-l", "127.0.0.1:\(port)", "-E", "HREADERD_STATE_DIR=\(state)",
                       "-E", "HREADERD_PASSWORD_FILE=\(dir.file("pw"))", productsDirectory + "/hreaderd", "serve", "--listen", "127.0.0.1:1"]
            .map { "'\($0)'" }.joined(separator: " ")
        let started = try run("/bin/sh", ["-c", "\(command) >/dev/null 2>'\(log)' </dev/null & echo $!"])
        let pid = try #require(Int32(started.out.trimmingCharacters(in: .whitespacesAndNewlines)))
        defer { kill(pid, SIGKILL) }
        // The socket is already listening: curl may connect before the daemon starts, and gets its answer.
        let result = try run(which("curl")!, ["-s", "--max-time", "20", "http://127.0.0.1:\(port)/healthz"])
        #expect(result.out.contains(#""status":"ok""#), "\(result.out) \(result.err)")
        kill(pid, SIGTERM)
        for _ in 0..<200 where kill(pid, 0) == 0 { usleep(50_000) }
        #expect(kill(pid, 0) != 0, "the daemon stopped on SIGTERM")
        let text = String(decoding: fileBytes(log), as: UTF8.self)
        #expect(text.contains("listening on 127.0.0.1:\(port)"), "\(text)")
        #expect(!text.contains("127.0.0.1:1\n") && !text.contains("127.0.0.1:1 "), "the inherited socket replaces --listen")
    }

    /// A datagram socket standing in for systemd's NOTIFY_SOCKET.
    final class NotifyListener: @unchecked Sendable {
        let fd: Int32
        let name: String
        init(path: String) throws {
            let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            self.fd = fd
            name = path
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            let abstract = bytes.first == UInt8(ascii: "@")
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, b) in bytes.enumerated() { raw[i] = (i == 0 && abstract) ? 0 : b }
            }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
            guard bound == 0 else { throw HTTPTestClient.Failure(description: "cannot bind \(path)") }
            var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        deinit { close(fd) }

        /// Datagrams received until `seconds` pass or `until` is satisfied.
        func receive(for seconds: Double, until: ([String]) -> Bool = { _ in false }) -> [String] {
            var messages: [String] = []
            let deadline = Date().addingTimeInterval(seconds)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date() < deadline && !until(messages) {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 { messages.append(String(decoding: buffer[0..<n], as: UTF8.self)) }
            }
            return messages
        }
    }

    @Test("the notify protocol: READY=1 with a STATUS, WATCHDOG=1 at the configured rate, STOPPING=1; path and abstract sockets",
          arguments: ["path", "abstract"])
    func notifyProtocol(_ kind: String) throws {
        try initStore()
        let name = kind == "path" ? dir.file("notify.sock") : "@hreaderd-test-\(UUID().uuidString)"
        let listener = try NotifyListener(path: name)
        let daemon = try Daemon(state: state, environment: [
            "HREADERD_PASSWORD_FILE": dir.file("pw"), "NOTIFY_SOCKET": name, "WATCHDOG_USEC": "400000",
        ])
        let started = listener.receive(for: 10) { $0.contains { $0.contains("READY=1") } }
        let ready = try #require(started.first { $0.contains("READY=1") })
        #expect(ready.contains("STATUS=serving 0 patients"), "\(ready)")
        // 400 ms watchdog: a ping every 200 ms, so 2 seconds hold about ten.
        let running = listener.receive(for: 2)
        let pings = running.filter { $0 == "WATCHDOG=1" }.count
        print("watchdog pings in 2 s at WATCHDOG_USEC=400000: \(pings)")
        #expect(pings >= 5 && pings <= 14, "\(running)")
        kill(daemon.process.processIdentifier, SIGTERM)
        let stopping = listener.receive(for: 10) { $0.contains { $0.contains("STOPPING=1") } }
        #expect(stopping.contains { $0.contains("STOPPING=1") })
        #expect(daemon.stop() == 0)
    }

    @Test("the password comes from $CREDENTIALS_DIRECTORY/password: the daemon starts unlocked")
    func credentialsDirectory() throws {
        try initStore(password: "credential pw")
        let credentials = dir.file("credentials")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: false)
        try "credential pw".write(toFile: credentials + "/password", atomically: true, encoding: .utf8)
        let daemon = try Daemon(state: state, environment: ["CREDENTIALS_DIRECTORY": credentials])
        defer { daemon.stop() }
        #expect(try daemon.client.get("/healthz").object["locked"] as? Bool == false)
        let locked = try Daemon(state: state)
        defer { locked.stop() }
        #expect(try locked.client.get("/healthz").object["locked"] as? Bool == true, "without a password it starts locked")
    }

    @Test("SIGTERM during a request: the request completes, then the daemon exits 0")
    func sigtermDuringRequest() throws {
        try initStore()
        let daemon = try Daemon(state: state, environment: ["HREADERD_PASSWORD_FILE": dir.file("pw")])
        // A request whose body is still arriving when the signal comes.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(daemon.port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7f00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        #expect(connected == 0)
        let body = #"{"password":"unit pw"}"#
        let head = "POST /session HTTP/1.1\r\nHost: 127.0.0.1:\(daemon.port)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        let first = Array((head + body.prefix(5)).utf8)
        _ = first.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
        usleep(200_000)
        kill(daemon.process.processIdentifier, SIGTERM)
        usleep(200_000)
        let rest = Array(body.dropFirst(5).utf8)
        _ = rest.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        let response = try HTTPTestClient.parse(received)
        #expect(response.status == 200)
        #expect(response.object["signed_in"] as? Bool == true)
        #expect(daemon.stop() == 0)
        #expect(daemon.output.contains("stopped"))
    }

    @Test("logs to the journal carry a syslog priority and no timestamp; elsewhere a timestamp and a level")
    func journalFormat() throws {
        try initStore()
        let errors = Pipe()
        var info = stat()
        #expect(fstat(errors.fileHandleForWriting.fileDescriptor, &info) == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: productsDirectory + "/hreaderd")
        process.arguments = ["serve", "--state-dir", state, "--listen", "127.0.0.1:0"]
        process.environment = ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)", "PATH": "/usr/bin:/bin"]
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var log = ""
        let deadline = Date().addingTimeInterval(20)
        while !log.contains("listening on"), Date() < deadline {
            log += String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
        }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        try errors.fileHandleForWriting.close()
        log += String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = log.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.hasPrefix("<") && $0.dropFirst(2).hasPrefix(">") }, "\(log)")
        #expect(lines.contains { $0.hasPrefix("<6>listening on 127.0.0.1:") })
        #expect(!log.contains("2026-") && !log.contains("T0"), "no timestamps: the journal adds its own")
    }
}
