import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A library publisher for the tests: a tiny HTTP/1.1 server on a loopback port that serves the files of a
/// folder (a pack: `manifest.json`, `manifest.json.sig`, the `.gz`), answers `Range: bytes=N-` with `206`, and
/// misbehaves on request, file by file: an error status, a body cut after so many bytes (its whole length
/// announced), `200` in place of `206`, or no answer at all. Every request is logged. Written on raw sockets,
/// not HTTPKit, so that a test controls exactly what goes on the wire.
public final class PackPublisher: @unchecked Sendable {
    public enum Fault: Sendable, Equatable {
        /// Answer this status with a short body.
        case status(Int)
        /// Send the head and this many bytes of the body, then close the connection; for the next `times` requests.
        case cutAfter(bytes: Int, times: Int)
        /// Answer the whole file with `200`, whatever `Range` asked.
        case ignoreRange
        /// Read the request and never answer (until the publisher stops).
        case hang
    }

    public struct Logged: Sendable, Equatable {
        public var path: String
        public var range: String?
        public var status: Int
    }

    public let folder: String
    public private(set) var port = 0
    private let lock = NSLock()
    private var faults: [String: Fault] = [:]
    private var log: [Logged] = []
    private var stopped = false
    private var listener: Int32 = -1
    private let done = DispatchSemaphore(value: 0)

    /// Serves `folder` under `/` (and under any prefix: only the last path segment names the file).
    public init(folder: String) throws {
        self.folder = folder
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw HTTPTestClient.Failure(description: "the publisher cannot listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// The publisher's URL (`http://127.0.0.1:PORT/packs`).
    public var url: String { "http://127.0.0.1:\(port)/packs" }

    public func setFault(_ fault: Fault?, for file: String) {
        lock.lock(); defer { lock.unlock() }
        faults[file] = fault
    }

    /// The requests so far, oldest first.
    public var requests: [Logged] {
        lock.lock(); defer { lock.unlock() }
        return log
    }

    public func requests(for file: String) -> [Logged] { requests.filter { $0.path.hasSuffix("/" + file) } }

    public func stop() {
        lock.lock()
        let wasStopped = stopped
        stopped = true
        lock.unlock()
        guard !wasStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        done.wait()
        close(listener)
    }

    private var isStopped: Bool {
        lock.lock(); defer { lock.unlock() }
        return stopped
    }

    private func acceptLoop() {
        defer { done.signal() }
        while !isStopped {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 else { return }
            if poller.revents == 0 { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { if isStopped { return }; continue }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !head.containsHeadEnd {
            let n = read(connection, &buffer, buffer.count)
            guard n > 0 else { return }
            head += buffer[0..<n]
            if head.count > 65536 { return }
        }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2 else { return }
        let path = String(parts[1])
        var range: String?
        for line in lines.dropFirst() where line.lowercased().hasPrefix("range:") {
            range = line.dropFirst(6).trimmingCharacters(in: .whitespaces)
        }
        let file = String(path.split(separator: "/").last ?? "")
        lock.lock()
        let fault = faults[file]
        if case .cutAfter(let bytes, let times) = fault {
            faults[file] = times > 1 ? .cutAfter(bytes: bytes, times: times - 1) : nil
        }
        lock.unlock()

        func answer(_ status: Int, _ headers: [String], _ body: ArraySlice<UInt8>, cutAfter: Int? = nil) {
            note(path, range, status)
            var text = "HTTP/1.1 \(status) \(status == 200 ? "OK" : status == 206 ? "Partial Content" : "Status")\r\n"
            for header in headers + ["Content-Length: \(body.count)", "Connection: close"] { text += header + "\r\n" }
            text += "\r\n"
            sendAll(connection, Array(text.utf8))
            sendAll(connection, Array(body.prefix(cutAfter ?? body.count)))
        }

        if fault == .hang {
            note(path, range, 0)
            while !isStopped { usleep(20_000) }
            return
        }
        if case .status(let code) = fault {
            answer(code, ["Content-Type: text/plain"], ArraySlice("injected \(code)\n".utf8))
            return
        }
        guard !file.isEmpty, let data = FileManager.default.contents(atPath: folder + "/" + file) else {
            answer(404, ["Content-Type: text/plain"], ArraySlice("not found\n".utf8))
            return
        }
        let bytes = [UInt8](data)
        var cut: Int?
        if case .cutAfter(let count, _) = fault { cut = count }
        if let range, fault != .ignoreRange, range.hasPrefix("bytes="), range.hasSuffix("-"), let start = Int(range.dropFirst(6).dropLast()) {
            guard start < bytes.count else {
                answer(416, ["Content-Range: bytes */\(bytes.count)"], [])
                return
            }
            answer(206, ["Content-Range: bytes \(start)-\(bytes.count - 1)/\(bytes.count)", "Content-Type: application/octet-stream"],
                   bytes[start...], cutAfter: cut)
            return
        }
        answer(200, ["Content-Type: application/octet-stream"], bytes[...], cutAfter: cut)
    }

    private func note(_ path: String, _ range: String?, _ status: Int) {
        lock.lock(); defer { lock.unlock() }
        log.append(Logged(path: path, range: range, status: status))
    }

    private func sendAll(_ connection: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(connection, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return }
            sent += n
        }
    }
}

extension [UInt8] {
    fileprivate var containsHeadEnd: Bool {
        guard count >= 4 else { return false }
        for index in 0...(count - 4) where self[index] == 13 && self[index + 1] == 10 && self[index + 2] == 13 && self[index + 3] == 10 {
            return true
        }
        return false
    }
}
