/// The request-target of a request line, taken apart: path, decoded segments, query.
///
/// Only origin-form (`/path?query`) is accepted; absolute-form, authority-form and `*` are
/// refused with `400`, as is any `.` or `..` segment, raw or percent-encoded. Browsers remove
/// dot segments before sending, so one on the wire is a probe, and refusing it here keeps every
/// route (and the file server) from having to reason about it.
struct RequestTarget: Sendable, Equatable {
    let path: String
    let segments: [String]
    let rawQuery: String?
    let query: Query

    init(parsing uri: String) throws(HTTPError) {
        // One pass over the request line's bytes, as stored (parsed on every request).
        var uri = uri
        let parts = uri.withUTF8 { bytes in Result { () throws(HTTPError) in try Self.parts(of: bytes) } }
        (self.path, self.segments, self.rawQuery) = try parts.get()
        self.query = try self.rawQuery.map { (raw) throws(HTTPError) in try Query(parsing: raw) } ?? Query()
    }

    private static func parts(of bytes: UnsafeBufferPointer<UInt8>) throws(HTTPError) -> (String, [String], String?) {
        guard bytes.first == UInt8(ascii: "/") else {
            throw HTTPError.badRequest("Only absolute paths are accepted as request targets.", code: "bad_target")
        }
        var pathEnd = bytes.count
        for index in bytes.indices {
            switch bytes[index] {
            case UInt8(ascii: "#"):
                throw HTTPError.badRequest("A request target has no fragment.", code: "bad_target")
            case UInt8(ascii: "?") where pathEnd == bytes.count:
                pathEnd = index
            default:
                break
            }
        }
        var segments: [String] = []
        if pathEnd > 1 {
            var start = 1
            var escaped = false
            for index in 1...pathEnd {
                let byte = index == pathEnd ? UInt8(ascii: "/") : bytes[index]
                if byte == UInt8(ascii: "%") { escaped = true }
                guard byte == UInt8(ascii: "/") else { continue }
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
                let segment: String
                if escaped {
                    guard let text = PercentDecoding.decode(bytes: raw, plusAsSpace: false) else {
                        throw HTTPError.badRequest("The path is not valid percent-encoded UTF-8.", code: "bad_path")
                    }
                    segment = text
                } else {
                    segment = String(decoding: raw, as: UTF8.self)
                }
                guard segment != ".", segment != ".." else {
                    throw HTTPError.badRequest("The path has a dot segment.", code: "bad_path")
                }
                if segments.isEmpty { segments.reserveCapacity(4) }
                segments.append(segment)
                start = index + 1
                escaped = false
            }
        }
        let path = String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<pathEnd]), as: UTF8.self)
        let rawQuery = pathEnd < bytes.count
            ? String(decoding: UnsafeBufferPointer(rebasing: bytes[(pathEnd + 1)...]), as: UTF8.self) : nil
        return (path, segments, rawQuery)
    }
}
