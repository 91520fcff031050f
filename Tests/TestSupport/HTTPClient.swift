import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small blocking HTTP/1.1 client over a TCP socket, for integration tests: it sends exactly the
/// headers it is given (Host, Origin, Cookie…), follows no redirects, and reads one response.
public struct HTTPTestClient: Sendable {
    public struct Response: Sendable {
        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
        public var text: String { String(decoding: body, as: UTF8.self) }
        public var json: Any? { try? JSONSerialization.jsonObject(with: Data(body)) }
        public var object: [String: Any] { (json as? [String: Any]) ?? [:] }
        public var errorCode: String? { (object["error"] as? [String: Any])?["code"] as? String }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    public let host: String
    public let port: Int

    public init(host: String = "127.0.0.1", port: Int) {
        self.host = host
        self.port = port
    }

    /// Sends one request on a new connection and reads the response.
    public func request(_ method: String, _ target: String, headers: [String: String] = [:], body: [UInt8] = []) throws -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\n"
        var all = headers
        if all.keys.first(where: { $0.lowercased() == "host" }) == nil { all["Host"] = "\(host):\(port)" }
        if !body.isEmpty || method == "POST" { all["Content-Length"] = String(body.count) }
        all["Connection"] = "close"
        for (name, value) in all.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        let raw = try exchange(Array(head.utf8) + body)
        return try Self.parse(raw)
    }

    public func get(_ target: String, headers: [String: String] = [:]) throws -> Response {
        try request("GET", target, headers: headers)
    }

    public func post(_ target: String, json: String, headers: [String: String] = [:]) throws -> Response {
        var h = headers
        h["Content-Type"] = h["Content-Type"] ?? "application/json"
        return try request("POST", target, headers: h, body: Array(json.utf8))
    }

    public func post(_ target: String, form: String, headers: [String: String] = [:]) throws -> Response {
        var h = headers
        h["Content-Type"] = "application/x-www-form-urlencoded"
        return try request("POST", target, headers: h, body: Array(form.utf8))
    }

    /// Writes raw bytes, reads until the server closes, returns everything it sent.
    public func exchange(_ bytes: [UInt8], timeoutSeconds: Int = 30) throws -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect to \(host):\(port) failed: \(String(cString: strerror(errno)))") }
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break } // the server may answer and close before reading everything (413)
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n <= 0 { break }
            received.append(contentsOf: buffer[0..<n])
        }
        return received
    }

    public static func parse(_ raw: [UInt8]) throws -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = raw.indices.first(where: { i in i + 4 <= raw.count && Array(raw[i..<i + 4]) == separator }) else {
            throw Failure(description: "no complete response head in \(raw.count) bytes")
        }
        let lines = String(decoding: raw[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "bad status line \(lines[0])") }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var body = Array(raw[(end + 4)...])
        if headers.contains(where: { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased() == "chunked" }) {
            guard let decoded = dechunk(body) else {
                throw Failure(description: "a chunked body without its last chunk (\(body.count) bytes): cut short")
            }
            body = decoded
        }
        if let length = headers.first(where: { $0.0.lowercased() == "content-length" }).flatMap({ Int($0.1) }), body.count > length {
            body = Array(body.prefix(length))
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// A chunked body (RFC 9112 section 7.1) decoded; nil when it does not end with its last chunk.
    public static func dechunk(_ bytes: [UInt8]) -> [UInt8]? {
        var body: [UInt8] = []
        var at = 0
        while true {
            var lineEnd = at
            while lineEnd + 1 < bytes.count, !(bytes[lineEnd] == 13 && bytes[lineEnd + 1] == 10) { lineEnd += 1 }
            guard lineEnd + 1 < bytes.count,
                  let size = Int(String(decoding: bytes[at..<lineEnd], as: UTF8.self).split(separator: ";").first ?? "", radix: 16)
            else { return nil }
            at = lineEnd + 2
            if size == 0 { return bytes.count >= at + 2 ? body : nil }
            guard bytes.count >= at + size + 2 else { return nil }
            body += bytes[at..<(at + size)]
            at += size + 2
        }
    }
}

extension HTTPTestClient {
    /// The same request, run on a thread of its own: tests must block neither the Swift concurrency pool
    /// (which runs the server's handlers in in-process tests) nor Dispatch's global queue (as wide as the
    /// machine has cores on Linux).
    public func send(_ method: String, _ target: String, headers: [String: String] = [:], body: [UInt8] = []) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try self.request(method, target, headers: headers, body: body) })
            }
            thread.start()
        }
    }

    public func get(_ target: String, headers: [String: String] = [:]) async throws -> Response {
        try await send("GET", target, headers: headers)
    }

    public func post(_ target: String, json: String, headers: [String: String] = [:]) async throws -> Response {
        var h = headers
        h["Content-Type"] = h["Content-Type"] ?? "application/json"
        return try await send("POST", target, headers: h, body: Array(json.utf8))
    }

    public func post(_ target: String, form: String, headers: [String: String] = [:]) async throws -> Response {
        var h = headers
        h["Content-Type"] = "application/x-www-form-urlencoded"
        return try await send("POST", target, headers: h, body: Array(form.utf8))
    }
}
