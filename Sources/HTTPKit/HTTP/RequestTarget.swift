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
        guard uri.utf8.first == UInt8(ascii: "/") else {
            throw HTTPError.badRequest("Only absolute paths are accepted as request targets.", code: "bad_target")
        }
        let pathPart: Substring
        let queryPart: Substring?
        // Byte-wise: '?' and '#' are ASCII, and a request line is parsed on every request.
        if let question = uri.utf8.firstIndex(of: UInt8(ascii: "?")) {
            pathPart = uri[..<question]
            queryPart = uri[uri.utf8.index(after: question)...]
        } else {
            pathPart = Substring(uri)
            queryPart = nil
        }
        guard !uri.utf8.contains(UInt8(ascii: "#")) else {
            throw HTTPError.badRequest("A request target has no fragment.", code: "bad_target")
        }
        var segments: [String] = []
        for raw in RoutePattern.split(pathPart) {
            guard let decoded = PercentDecoding.decode(raw, plusAsSpace: false) else {
                throw HTTPError.badRequest("The path is not valid percent-encoded UTF-8.", code: "bad_path")
            }
            guard decoded != ".", decoded != ".." else {
                throw HTTPError.badRequest("The path has a dot segment.", code: "bad_path")
            }
            segments.append(decoded)
        }
        self.path = String(pathPart)
        self.segments = segments
        self.rawQuery = queryPart.map(String.init)
        self.query = try queryPart.map { (part) throws(HTTPError) in try Query(parsing: part) } ?? Query()
    }
}
