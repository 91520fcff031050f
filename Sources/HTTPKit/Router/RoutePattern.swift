/// A parsed route pattern: `/patients/{id}/export.json`, `/timeline/**`.
///
/// Literal segments are written decoded and compared with decoded request segments. `{name}`
/// matches one non-empty segment. A final `**` matches the rest of the path, zero or more
/// segments. `/a/` (trailing slash) and `/a` are different patterns.
struct RoutePattern: Sendable, Equatable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        case catchAll
    }

    let segments: [Segment]
    let description: String

    var parameterNames: [String] {
        self.segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }

    enum ParseError: Error, Equatable {
        case notAbsolute
        case badParameterName(String)
        case catchAllNotLast
        case braceInLiteral(String)
        case duplicateParameter(String)
    }

    init(_ pattern: String) throws(ParseError) {
        guard pattern.hasPrefix("/") else { throw .notAbsolute }
        var segments: [Segment] = []
        let parts = RoutePattern.split(pattern)
        for (index, part) in parts.enumerated() {
            if part == "**" {
                guard index == parts.count - 1 else { throw .catchAllNotLast }
                segments.append(.catchAll)
            } else if part.hasPrefix("{") && part.hasSuffix("}") {
                let name = String(part.dropFirst().dropLast())
                guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                    throw .badParameterName(name)
                }
                guard !segments.contains(.parameter(name)) else { throw .duplicateParameter(name) }
                segments.append(.parameter(name))
            } else {
                guard !part.contains("{"), !part.contains("}") else { throw .braceInLiteral(String(part)) }
                segments.append(.literal(String(part)))
            }
        }
        self.segments = segments
        self.description = pattern
    }

    /// Splits an absolute path the way requests are split: `/` is `[]`, `/a/` is `["a", ""]`.
    static func split(_ path: some StringProtocol) -> [Substring] {
        let rest = Substring(path).dropFirst()
        return rest.isEmpty ? [] : rest.splitUTF8(on: UInt8(ascii: "/"), omittingEmpty: false)
    }
}
