/// The values captured by a route pattern: `{name}` segments, and the rest of the path for a
/// trailing `**`. Values are percent-decoded.
public struct Parameters: Sendable, Equatable {
    private var values: [Capture]
    /// The segments matched by a trailing `**`, or `nil` when the pattern has none.
    public var catchAll: [String]?

    struct Capture: Sendable, Equatable {
        var name: String
        var value: String
    }

    public init() {
        self.values = []
        self.catchAll = nil
    }

    init(names: [String], values: [String], catchAll: [String]?) {
        self.values = zip(names, values).map { Capture(name: $0, value: $1) }
        self.catchAll = catchAll
    }

    /// The value captured for `{name}`, or `nil` when the pattern has no such parameter.
    public subscript(name: String) -> String? {
        self.values.first { $0.name == name }?.value
    }

    /// The value captured for `{name}`. A missing name is a mismatch between the code and its
    /// route pattern, reported as a `500` rather than a crash.
    public func require(_ name: String) throws(HTTPError) -> String {
        guard let value = self[name] else { throw HTTPError.internalServerError }
        return value
    }
}
