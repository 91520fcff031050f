/// The reference that says whose a resource is, read with the resource: the first of its `subject`,
/// `patient` and `beneficiary` (in that order) that is a Reference with a `reference` string. A member given
/// twice counts as given last, as `JSONObject`'s subscript reads it.
///
/// Read straight from the file's bytes, two strings a resource: the tree of each member (`JSONValue`) that it
/// replaces was a twelfth of a bundle's reading (`bench/perf/mapping-instructions.py`).
struct FHIRPatientReference: Sendable, Equatable {
    var target: String
    var display: String?

    /// The members that name the resource's patient, in the order they are tried.
    static let fields = ["subject", "patient", "beneficiary"]

    /// What each of `fields` said, by its index: a reference, or nil (absent, or not a Reference).
    struct Candidates {
        private var said: (FHIRPatientReference?, FHIRPatientReference?, FHIRPatientReference?) = (nil, nil, nil)

        mutating func set(_ field: Int, _ reference: FHIRPatientReference?) {
            switch field {
            case 0: said.0 = reference
            case 1: said.1 = reference
            default: said.2 = reference
            }
        }

        /// The first field's reference, in the order of `fields`.
        var first: FHIRPatientReference? { said.0 ?? said.1 ?? said.2 }
    }

    /// The index in `fields` of the key `key` of `scanner`, if it is one of them. Spelled out rather than searched
    /// for in `fields`: it runs for every member of every resource, and the search cost the read 3 %.
    static func field(_ key: JSONScanner.StringToken, of scanner: JSONScanner) -> Int? {
        if scanner.token(key, equals: "subject") { return 0 }
        if scanner.token(key, equals: "patient") { return 1 }
        if scanner.token(key, equals: "beneficiary") { return 2 }
        return nil
    }

    /// The value at the scanner's position, read whole (and checked as `skipValue` checks it): its reference
    /// when it is an object with a `reference` string.
    static func read(_ scanner: inout JSONScanner) throws(JSONScanError) -> FHIRPatientReference? {
        guard scanner.peekKind() == .object else {
            try scanner.skipValue()
            return nil
        }
        try scanner.beginObject()
        var target: String?
        var display: String?
        var first = true
        while let key = try scanner.nextKey(isFirst: &first) {
            if scanner.token(key, equals: "reference") {
                target = try readString(&scanner)
            } else if scanner.token(key, equals: "display") {
                display = try readString(&scanner)
            } else {
                try scanner.skipValue()
            }
        }
        return target.map { FHIRPatientReference(target: $0, display: display) }
    }

    /// The string at the scanner's position, or nil (the value stepped over) when it is something else.
    private static func readString(_ scanner: inout JSONScanner) throws(JSONScanError) -> String? {
        guard scanner.peekKind() == .string else {
            try scanner.skipValue()
            return nil
        }
        return scanner.string(try scanner.readStringToken())
    }

    /// The same, of a resource parsed already (a `contained` one): the object at `node` of `tape`.
    static func first(in tape: JSONTape, object node: Int) -> FHIRPatientReference? {
        for field in fields {
            guard let value = tape.member(field, of: node) else { continue }
            guard tape.nodes[value].kind == .object, let target = tape.member("reference", of: value),
                  tape.nodes[target].kind == .string else { continue }
            let display = tape.member("display", of: value).flatMap { tape.nodes[$0].kind == .string ? tape.string(at: $0) : nil }
            return FHIRPatientReference(target: tape.string(at: target), display: display)
        }
        return nil
    }
}
