import HealthRecord

/// The top-level members of a record that the parser reads; everything else is kept raw.
enum RecordField {
    case id
    case first
    case last
    case name
    case gender
    case birthdate
    case medicalRecordNumber
    case expired
    case deathdate
    case section(EntryType)
    case other

    init(_ key: JSONScanner.StringToken, in scanner: JSONScanner) {
        if scanner.token(key, equals: "_id") { self = .id }
        else if scanner.token(key, equals: "first") { self = .first }
        else if scanner.token(key, equals: "last") { self = .last }
        else if scanner.token(key, equals: "name") { self = .name }
        else if scanner.token(key, equals: "gender") { self = .gender }
        else if scanner.token(key, equals: "birthdate") { self = .birthdate }
        else if scanner.token(key, equals: "medical_record_number") { self = .medicalRecordNumber }
        else if scanner.token(key, equals: "expired") { self = .expired }
        else if scanner.token(key, equals: "deathdate") { self = .deathdate }
        else if scanner.token(key, equals: "encounters") { self = .section(.encounter) }
        else if scanner.token(key, equals: "conditions") { self = .section(.condition) }
        else if scanner.token(key, equals: "allergies") { self = .section(.allergy) }
        else if scanner.token(key, equals: "medications") { self = .section(.medication) }
        else if scanner.token(key, equals: "procedures") { self = .section(.procedure) }
        else if scanner.token(key, equals: "results") { self = .section(.result) }
        else if scanner.token(key, equals: "vital_signs") { self = .section(.vitalSign) }
        else if scanner.token(key, equals: "immunizations") { self = .section(.immunization) }
        else { self = .other }
    }
}

/// The members of an entry that normalisation reads; everything else lives on in the raw JSON only.
/// Matched by length first because this runs for every member of every entry, and most members
/// (`_type`, `version`, `freeTextSig`, …) are ones we skip.
enum EntryField {
    case id
    case description
    case name
    case time
    case startTime
    case endTime
    case status
    case statusCode
    /// HDS's coded statuses, `{"code": "55561003", "codeSystem": "SNOMED-CT"}` (hds_v4_barry_berry.json).
    case problemStatus
    case statusOfMedication
    case value
    case values
    case codes
    /// HDS's `referenceRange` (text, or `{low, high}`), also written `reference_range`.
    case referenceRange
    /// HDS's `interpretation`: `{code, code_system}` or a code.
    case interpretation
    case other

    init(_ key: JSONScanner.StringToken, in scanner: JSONScanner) {
        if key.hasEscapes {
            // A member name written with escapes (`"\u0074ime"`) is the same name: decode and look up.
            self = EntryField.byName[scanner.string(key)] ?? .other
            return
        }
        switch key.contents.count {
        case 3 where scanner.token(key, equals: "_id"): self = .id
        case 4 where scanner.token(key, equals: "time"): self = .time
        case 4 where scanner.token(key, equals: "name"): self = .name
        case 5 where scanner.token(key, equals: "value"): self = .value
        case 5 where scanner.token(key, equals: "codes"): self = .codes
        case 6 where scanner.token(key, equals: "status"): self = .status
        case 6 where scanner.token(key, equals: "values"): self = .values
        case 8 where scanner.token(key, equals: "end_time"): self = .endTime
        case 10 where scanner.token(key, equals: "start_time"): self = .startTime
        case 11 where scanner.token(key, equals: "description"): self = .description
        case 11 where scanner.token(key, equals: "status_code"): self = .statusCode
        case 13 where scanner.token(key, equals: "problemStatus"): self = .problemStatus
        case 14 where scanner.token(key, equals: "referenceRange"): self = .referenceRange
        case 14 where scanner.token(key, equals: "interpretation"): self = .interpretation
        case 15 where scanner.token(key, equals: "reference_range"): self = .referenceRange
        case 18 where scanner.token(key, equals: "statusOfMedication"): self = .statusOfMedication
        default: self = .other
        }
    }

    private static let byName: [String: EntryField] = [
        "_id": .id, "description": .description, "name": .name, "time": .time,
        "start_time": .startTime, "end_time": .endTime, "status": .status, "status_code": .statusCode,
        "problemStatus": .problemStatus, "statusOfMedication": .statusOfMedication,
        "value": .value, "values": .values, "codes": .codes,
        "referenceRange": .referenceRange, "reference_range": .referenceRange, "interpretation": .interpretation,
    ]
}
