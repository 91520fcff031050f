/// The members of one entry that normalisation looks at, exactly as the source wrote them. Reading
/// (this) and normalising (`EntryNormalisation`) are separate so that each generation's quirks live
/// in one place.
struct EntryFields {
    var id: JSONValue?
    var description: JSONValue?
    var name: JSONValue?
    var time: JSONValue?
    var startTime: JSONValue?
    var endTime: JSONValue?
    var status: JSONValue?
    var statusCode: JSONValue?
    var problemStatus: JSONValue?
    var statusOfMedication: JSONValue?
    var value: JSONValue?
    var values: JSONValue?
    var codes: JSONValue?
    var referenceRange: JSONValue?
    var interpretation: JSONValue?

    /// Reads the entry object at the scanner's position. Members we do not use are skipped (still
    /// checked as JSON), never built. A repeated member: the last one counts, as in most JSON readers.
    static func read(from scanner: inout JSONScanner) throws -> EntryFields {
        var fields = EntryFields()
        try scanner.beginObject()
        var first = true
        while let key = try scanner.nextKey(isFirst: &first) {
            switch EntryField(key, in: scanner) {
            case .id: fields.id = try scanner.parseValue()
            case .description: fields.description = try scanner.parseValue()
            case .name: fields.name = try scanner.parseValue()
            case .time: fields.time = try scanner.parseValue()
            case .startTime: fields.startTime = try scanner.parseValue()
            case .endTime: fields.endTime = try scanner.parseValue()
            case .status: fields.status = try scanner.parseValue()
            case .statusCode: fields.statusCode = try scanner.parseValue()
            case .problemStatus: fields.problemStatus = try scanner.parseValue()
            case .statusOfMedication: fields.statusOfMedication = try scanner.parseValue()
            case .value: fields.value = try scanner.parseValue()
            case .values: fields.values = try scanner.parseValue()
            case .codes: fields.codes = try scanner.parseValue()
            case .referenceRange: fields.referenceRange = try scanner.parseValue()
            case .interpretation: fields.interpretation = try scanner.parseValue()
            case .other: try scanner.skipValue()
            }
        }
        return fields
    }
}
