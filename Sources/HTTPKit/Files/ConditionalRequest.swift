/// Evaluation of `If-None-Match` and `If-Modified-Since` (RFC 9110 section 13) for GET and HEAD.
enum ConditionalRequest {
    /// Whether the client's cached copy is current, so that `304 Not Modified` is the answer.
    ///
    /// `If-None-Match` wins when present (weak comparison: `W/"x"` matches `"x"`);
    /// `If-Modified-Since` is consulted only without it, with whole-second precision as HTTP
    /// dates have.
    static func isNotModified(headers: HTTPHeaders, entityTag: String, modificationSeconds: Int) -> Bool {
        let ifNoneMatch = headers[canonicalForm: "if-none-match"]
        if !ifNoneMatch.isEmpty {
            let tag = opaque(entityTag)
            return ifNoneMatch.contains { candidate in
                candidate == "*" || opaque(candidate) == tag
            }
        }
        if let since = headers.first(name: "if-modified-since"), let date = HTTPDate.parse(since) {
            return modificationSeconds <= date
        }
        return false
    }

    private static func opaque(_ tag: some StringProtocol) -> Substring {
        let trimmed = Substring(tag)
        return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : trimmed
    }
}
