import Records

/// `application/json` posts: one flat object whose values are strings, numbers or booleans (or an array
/// of those, the JSON twin of a repeated form field). Nesting, null, duplicate names and trailing bytes are
/// refused: a post is a handful of fields, not a document. The JSON itself is read by the record formats'
/// scanner (`JSONDocument`), the one JSON parser of the project.
public enum FlatJSONBody {
    /// Object → array → value: anything deeper is refused by the scanner before it is built.
    static let maximumDepth = 3

    public static func parse(_ body: [UInt8], limits: PostLimits = .default) throws(PostBodyError) -> PostFields {
        guard body.count <= limits.maximumBodyBytes else { throw .tooLarge("over \(limits.maximumBodyBytes) bytes") }
        let document: JSONValue
        do {
            document = try JSONDocument.parse(body, maxBytes: limits.maximumBodyBytes, maxDepth: maximumDepth)
        } catch {
            switch error {
            case .invalidUTF8: throw .notUTF8
            case .tooDeep: throw .notFlat("a value is nested")
            case .tooLarge: throw .tooLarge("over \(limits.maximumBodyBytes) bytes")
            case .syntax(let offset, let reason): throw .badEncoding("\(reason) at offset \(offset)")
            }
        }
        guard case .object(let object) = document else { throw .notFlat("the body is not a JSON object") }
        var fields = PostFields()
        var names = Set<String>()
        for member in object.members {
            let name = member.key
            guard !name.isEmpty else { throw .badEncoding("a field has no name") }
            guard name.utf8.count <= limits.maximumNameBytes else { throw .tooLarge("a field name is over \(limits.maximumNameBytes) bytes") }
            try refuseNUL(name)
            guard names.insert(name).inserted else { throw .badEncoding("the field \(name) appears twice") }
            guard names.count <= limits.maximumFields else { throw .tooLarge("more than \(limits.maximumFields) fields") }
            fields.fields.append((name, try value(member.value, name: name, limits: limits)))
        }
        guard !fields.fields.isEmpty else { throw .empty }
        return fields
    }

    private static func value(_ json: JSONValue, name: String, limits: PostLimits) throws(PostBodyError) -> PostFields.Value {
        switch json {
        case .array(let elements):
            guard elements.count <= limits.maximumValuesPerField else {
                throw .tooLarge("more than \(limits.maximumValuesPerField) values for \(name)")
            }
            var items: [String] = []
            for element in elements {
                if case .array = element { throw .notFlat("\(name) holds a nested array") }
                items.append(contentsOf: try scalar(element, name: name, limits: limits).texts)
            }
            return .list(items)
        default:
            return try scalar(json, name: name, limits: limits)
        }
    }

    private static func scalar(_ json: JSONValue, name: String, limits: PostLimits) throws(PostBodyError) -> PostFields.Value {
        switch json {
        case .string(let text):
            guard text.utf8.count <= limits.maximumValueBytes else { throw .tooLarge("the value of \(name) is over \(limits.maximumValueBytes) bytes") }
            try refuseNUL(text)
            return .string(text)
        case .number(let number):
            guard number.literal.utf8.count <= 64 else { throw .tooLarge("a number is over 64 characters") }
            return .number(number.literal)
        case .bool(let flag): return .bool(flag)
        case .null: throw .notFlat("\(name) is null")
        case .object: throw .notFlat("\(name) is an object")
        case .array: throw .notFlat("\(name) holds a nested array")
        }
    }

    private static func refuseNUL(_ text: String) throws(PostBodyError) {
        guard !text.utf8.contains(0) else { throw .badEncoding("a string holds a NUL character") }
    }
}
