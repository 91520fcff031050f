import Foundation

/// An HTTP/1.1 response as the test client reads it off the wire.
struct ParsedResponse: Sendable, CustomStringConvertible {
    let status: Int
    let headers: [(name: String, value: String)]
    let body: [UInt8]

    var bodyText: String { String(decoding: self.body, as: UTF8.self) }

    func header(_ name: String) -> String? {
        self.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    func headers(_ name: String) -> [String] {
        self.headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    var closesConnection: Bool { self.header("connection")?.lowercased() == "close" }

    var description: String { "\(self.status) \(self.headers.map { "\($0.name): \($0.value)" }) \(self.bodyText.prefix(200))" }

    /// Parses one response from the front of `bytes`: the response and the bytes it used, or
    /// `nil` when it is not complete yet.
    static func parse(_ bytes: [UInt8], bodyless: Bool, closed: Bool) -> (ParsedResponse, Int)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4, let headEnd = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<($0 + 4)]) == separator })
        else { return nil }
        let headText = String(decoding: bytes[..<headEnd], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let bodyStart = headEnd + 4
        let response = { (body: [UInt8]) in ParsedResponse(status: status, headers: headers, body: body) }
        if bodyless || status < 200 || status == 204 || status == 304 {
            return (response([]), bodyStart)
        }
        if headers.contains(where: { $0.name.lowercased() == "transfer-encoding" && $0.value.lowercased() == "chunked" }) {
            return dechunk(bytes, from: bodyStart).map { (response($0.body), $0.end) }
        }
        if let length = headers.first(where: { $0.name.lowercased() == "content-length" }).flatMap({ Int($0.value) }) {
            guard bytes.count >= bodyStart + length else { return nil }
            return (response(Array(bytes[bodyStart..<(bodyStart + length)])), bodyStart + length)
        }
        // No length: the body runs to the close.
        guard closed else { return nil }
        return (response(Array(bytes[bodyStart...])), bytes.count)
    }

    /// A chunked body (RFC 9112 section 7.1) decoded, and where it ends; nil until its last chunk is in.
    static func dechunk(_ bytes: [UInt8], from start: Int) -> (body: [UInt8], end: Int)? {
        var body: [UInt8] = []
        var at = start
        while true {
            guard let lineEnd = (at..<max(at, bytes.count - 1)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }),
                  let size = Int(String(decoding: bytes[at..<lineEnd], as: UTF8.self).split(separator: ";")[0], radix: 16)
            else { return nil }
            at = lineEnd + 2
            if size == 0 {
                // No trailers are sent: the last chunk is followed by the empty line.
                guard bytes.count >= at + 2 else { return nil }
                return (body, at + 2)
            }
            guard bytes.count >= at + size + 2 else { return nil }
            body += bytes[at..<(at + size)]
            at += size + 2
        }
    }
}
