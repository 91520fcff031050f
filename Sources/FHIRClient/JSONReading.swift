import Records

/// Small readers over the project's JSON values, for the few members SMART and FHIR answers carry.
extension JSONValue {
    var text: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var object: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    var array: [JSONValue] {
        if case .array(let values) = self { return values }
        return []
    }

    /// `a.b.c` through objects.
    func path(_ keys: String...) -> JSONValue? {
        var current: JSONValue? = self
        for key in keys { current = current?.object?[key] }
        return current
    }
}

enum JSONReading {
    /// The largest nesting a SMART configuration, CapabilityStatement or Bundle is read to (FHIR resources
    /// nest deeper than RHEx records; this is the FHIR reader's own limit).
    static let maximumDepth = 64

    static func parse(_ bytes: [UInt8], limit: Int) -> JSONValue? {
        try? JSONDocument.parse(bytes, maxBytes: limit, maxDepth: maximumDepth)
    }
}
