import HealthRecord

/// One JSON object of a resource with typed reads of its members. A member that is absent (or null)
/// reads as nil; one that is present with the wrong type throws `FHIRError.badField`, naming the
/// resource and the path, because a wrong type in a field we map means we cannot say what the source
/// meant (and so import nothing of that patient rather than something wrong).
struct FHIRElement {
    let object: JSONObject
    /// "Observation/123"
    let resource: String
    /// "valueQuantity", "component[1].code"
    let path: String

    init(_ object: JSONObject, resource: String, path: String = "") {
        self.object = object
        self.resource = resource
        self.path = path
    }

    private func at(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    func bad(_ key: String, _ expected: String) -> FHIRError {
        .badField(resource: resource, path: at(key), expected: expected)
    }

    func has(_ key: String) -> Bool {
        if let value = object[key], !value.isNull { return true }
        return false
    }

    func string(_ key: String) throws(FHIRError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case let .string(text)?: return text
        default: throw bad(key, "a string")
        }
    }

    func bool(_ key: String) throws(FHIRError) -> Bool? {
        switch object[key] {
        case nil, .null?: return nil
        case let .bool(flag)?: return flag
        default: throw bad(key, "true or false")
        }
    }

    func number(_ key: String) throws(FHIRError) -> JSONNumber? {
        switch object[key] {
        case nil, .null?: return nil
        case let .number(number)?: return number
        default: throw bad(key, "a number")
        }
    }

    func element(_ key: String) throws(FHIRError) -> FHIRElement? {
        switch object[key] {
        case nil, .null?: return nil
        case let .object(object)?: return FHIRElement(object, resource: resource, path: at(key))
        default: throw bad(key, "an object")
        }
    }

    /// A list of objects; a single object where a list is expected is taken as a list of one (some
    /// exporters write `"category": {…}`).
    func elements(_ key: String) throws(FHIRError) -> [FHIRElement] {
        switch object[key] {
        case nil, .null?: return []
        case let .object(object)?: return [FHIRElement(object, resource: resource, path: at(key))]
        case let .array(values)?:
            var out: [FHIRElement] = []
            out.reserveCapacity(values.count)
            for (index, value) in values.enumerated() {
                guard case let .object(object) = value else { throw bad("\(key)[\(index)]", "an object") }
                out.append(FHIRElement(object, resource: resource, path: at("\(key)[\(index)]")))
            }
            return out
        default: throw bad(key, "a list of objects")
        }
    }

    func strings(_ key: String) throws(FHIRError) -> [String] {
        switch object[key] {
        case nil, .null?: return []
        case let .string(text)?: return [text]
        case let .array(values)?:
            var out: [String] = []
            for (index, value) in values.enumerated() {
                guard case let .string(text) = value else { throw bad("\(key)[\(index)]", "a string") }
                out.append(text)
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
        for coding in try element.elements("coding") {
            codings.append(Coding(system: try coding.string("system"), code: try coding.string("code"),
                                  display: try coding.string("display")))
        }
        if codings.isEmpty, element.has("code") {
            codings.append(Coding(system: try element.string("system"), code: try element.string("code"),
                                  display: try element.string("display")))
        }
        self.codings = codings
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
