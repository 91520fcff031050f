import HealthRecord

/// One JSON object of a resource with typed reads of its members. A member that is absent (or null)
/// reads as nil; one that is present with the wrong type throws `FHIRError.badField`, naming the
/// resource and the path, because a wrong type in a field we map means we cannot say what the source
/// meant (and so import nothing of that patient rather than something wrong).
///
/// The object is a node of its resource's `JSONTape`: reading a member makes only that member's value.
struct FHIRElement {
    let tape: JSONTape
    /// The object's node in `tape`.
    let node: Int
    /// "Observation/123"
    let resource: String
    /// Where the object is, made into its path ("component[1].code") only for a message: the path of the
    /// object holding it, its member's key there, and its place when that member is a list (else -1).
    private let parentPath: String
    private let key: String
    private let position: Int

    /// The resource's own object (`node`) of `tape`.
    init(_ tape: JSONTape, node: Int, resource: String) {
        self.init(tape, node: node, resource: resource, parentPath: "", key: "", position: -1)
    }

    private init(_ tape: JSONTape, node: Int, resource: String, parentPath: String, key: String, position: Int) {
        self.tape = tape
        self.node = node
        self.resource = resource
        self.parentPath = parentPath
        self.key = key
        self.position = position
    }

    /// "valueQuantity", "component[1].code"; empty for the resource's own object.
    var path: String {
        let step = position < 0 ? key : "\(key)[\(position)]"
        return parentPath.isEmpty || step.isEmpty ? parentPath + step : parentPath + "." + step
    }

    private func child(_ node: Int, _ key: String, at position: Int = -1) -> FHIRElement {
        FHIRElement(tape, node: node, resource: resource, parentPath: path, key: key, position: position)
    }

    private func at(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    func bad(_ key: String, _ expected: String) -> FHIRError {
        .badField(resource: resource, path: at(key), expected: expected)
    }

    /// The node of member `key`'s value, nil when it is absent or null.
    private func value(_ key: String) -> Int? {
        guard let index = tape.member(key, of: node), tape.nodes[index].kind != .null else { return nil }
        return index
    }

    func has(_ key: String) -> Bool { value(key) != nil }

    func string(_ key: String) throws(FHIRError) -> String? {
        guard let index = value(key) else { return nil }
        guard tape.nodes[index].kind == .string else { throw bad(key, "a string") }
        return tape.string(at: index)
    }

    /// Whether member `key` is the string `text` (false when it is absent or null), without making it.
    func string(_ key: String, is text: String) throws(FHIRError) -> Bool {
        guard let index = value(key) else { return false }
        guard tape.nodes[index].kind == .string else { throw bad(key, "a string") }
        return tape.string(at: index, equals: text)
    }

    func bool(_ key: String) throws(FHIRError) -> Bool? {
        guard let index = value(key) else { return nil }
        guard tape.nodes[index].kind == .bool else { throw bad(key, "true or false") }
        return tape.nodes[index].flag
    }

    func number(_ key: String) throws(FHIRError) -> JSONNumber? {
        guard let index = value(key) else { return nil }
        guard tape.nodes[index].kind == .number else { throw bad(key, "a number") }
        return tape.number(at: index)
    }

    func element(_ key: String) throws(FHIRError) -> FHIRElement? {
        guard let index = value(key) else { return nil }
        guard tape.nodes[index].kind == .object else { throw bad(key, "an object") }
        return child(index, key)
    }

    /// A list of objects; a single object where a list is expected is taken as a list of one (some
    /// exporters write `"category": {…}`).
    func elements(_ key: String) throws(FHIRError) -> [FHIRElement] {
        guard let index = value(key) else { return [] }
        switch tape.nodes[index].kind {
        case .object: return [child(index, key)]
        case .array:
            let values = tape.elements(of: index)
            var out: [FHIRElement] = []
            out.reserveCapacity(values.count)
            for (position, value) in values.enumerated() {
                guard tape.nodes[value].kind == .object else { throw bad("\(key)[\(position)]", "an object") }
                out.append(child(value, key, at: position))
            }
            return out
        default: throw bad(key, "a list of objects")
        }
    }

    func strings(_ key: String) throws(FHIRError) -> [String] {
        guard let index = value(key) else { return [] }
        switch tape.nodes[index].kind {
        case .string: return [tape.string(at: index)]
        case .array:
            var out: [String] = []
            for (position, value) in tape.elements(of: index).enumerated() {
                guard tape.nodes[value].kind == .string else { throw bad("\(key)[\(position)]", "a string") }
                out.append(tape.string(at: value))
            }
            return out
        default: throw bad(key, "a list of strings")
        }
    }

    /// A `date`, `dateTime` or `instant` as epoch seconds.
    func date(_ key: String) throws(FHIRError) -> Int64? {
        guard let text = try string(key) else { return nil }
        guard let (seconds, _) = FHIRDate.parse(text) else {
            throw bad(key, "a FHIR date (YYYY, YYYY-MM, YYYY-MM-DD or YYYY-MM-DDThh:mm:ss+zz:zz), not \"\(text.prefix(40))\"")
        }
        return seconds
    }

    /// A `Period` as its start and end.
    func period(_ key: String) throws(FHIRError) -> (start: Int64?, end: Int64?)? {
        guard let period = try element(key) else { return nil }
        return (try period.date("start"), try period.date("end"))
    }

    func codeableConcept(_ key: String) throws(FHIRError) -> CodeableConcept? {
        guard let element = try element(key) else { return nil }
        return try CodeableConcept(element)
    }

    func codeableConcepts(_ key: String) throws(FHIRError) -> [CodeableConcept] {
        var out: [CodeableConcept] = []
        for element in try elements(key) { out.append(try CodeableConcept(element)) }
        return out
    }

    /// A `Reference`'s `reference` string.
    func reference(_ key: String) throws(FHIRError) -> String? {
        try element(key)?.string("reference")
    }
}

/// A `CodeableConcept` (or a lone `Coding`, which some sources put where a concept belongs).
struct CodeableConcept {
    struct Coding {
        var system: String?
        var code: String?
        var display: String?
    }

    var text: String?
    var codings: [Coding]

    init(_ element: FHIRElement) throws(FHIRError) {
        text = try element.string("text")
        var codings: [Coding] = []
        for coding in try Self.codingElements(element) {
            codings.append(Coding(system: try coding.string("system"), code: try coding.string("code"),
                                  display: try coding.string("display")))
        }
        self.codings = codings
    }

    /// The objects a concept's codings are read from: its `coding` list, or, without one, the concept itself
    /// when it has a `code` (a lone `Coding` where a concept belongs).
    private static func codingElements(_ element: FHIRElement) throws(FHIRError) -> [FHIRElement] {
        let listed = try element.elements("coding")
        return listed.isEmpty && element.has("code") ? [element] : listed
    }

    /// Whether the concept `element` has codings (as `init` reads them), each in `system`: read without making
    /// its codes.
    static func isCoded(_ element: FHIRElement, onlyIn system: String) throws(FHIRError) -> Bool {
        let codings = try codingElements(element)
        guard !codings.isEmpty else { return false }
        for coding in codings where !(try coding.string("system", is: system)) { return false }
        return true
    }

    /// What a person reads: the text, else the first display, else a code with its system's name.
    var description: String? {
        if let text = nonEmpty(text) { return text }
        if let display = codings.lazy.compactMap({ nonEmpty($0.display) }).first { return display }
        if let coding = codings.first(where: { nonEmpty($0.code).map { !CodeValue.isNullLike($0) } ?? false }), let code = coding.code {
            return FHIRCodeSystems.name(coding.system) + " " + code
        }
        return nil
    }

    /// The codes by the store's system names.
    var codes: [String: [String]] {
        var out: [String: [String]] = [:]
        for coding in codings {
            // "Unknown", "UNK", "null": a source's way of saying there is no code.
            guard let code = nonEmpty(coding.code), !CodeValue.isNullLike(code) else { continue }
            let system = FHIRCodeSystems.name(coding.system)
            if !(out[system]?.contains(code) ?? false) { out[system, default: []].append(code) }
        }
        return out
    }

    /// The code of the first coding in `system` (or of any coding, when `system` is nil).
    func code(in system: String? = nil) -> String? {
        codings.first { system == nil || $0.system == system }?.code
    }

    func has(code: String, system: String? = nil) -> Bool {
        codings.contains { $0.code == code && (system == nil || $0.system == system) }
    }
}

func nonEmpty(_ text: String?) -> String? {
    guard let text, !text.isEmpty else { return nil }
    return text
}
