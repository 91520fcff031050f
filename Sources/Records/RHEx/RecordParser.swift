import HealthRecord

/// Parses one RHEx patient record (JSON, any of the three generations) into a `PatientRecord`.
///
/// Parsing only: no network, no store. The parser is a value with no state between calls, so one
/// instance may be shared freely across threads.
public struct RecordParser: Sendable {
    public var limits: ParseLimits

    public init(limits: ParseLimits = .standard) {
        self.limits = limits
    }

    /// Parses a record document.
    ///
    /// - Parameter recordID: the record's identity within its source when the caller knows it (an RHEx
    ///   source's feed gives it); nil to use the record's own `_id`, as `import-file` does. Without
    ///   either the record cannot be identified and parsing fails with `wrongShape` at `$._id`.
    public func parse(_ bytes: [UInt8], recordID: String? = nil) throws(RecordParseError) -> PatientRecord {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(RecordParseError) -> PatientRecord in try parse(buffer, recordID: recordID) }
        }
        return try result.get()
    }

    /// Parses a record document held in memory the caller owns (a `Data`'s bytes, a read buffer).
    public func parse(_ bytes: UnsafeRawBufferPointer, recordID: String? = nil) throws(RecordParseError) -> PatientRecord {
        let result = bytes.withMemoryRebound(to: UInt8.self) { buffer in
            Result { () throws(RecordParseError) -> PatientRecord in try parse(buffer, recordID: recordID) }
        }
        return try result.get()
    }

    /// Parses a record document from bytes the caller keeps alive for the call; the one the others
    /// end in.
    public func parse(_ bytes: UnsafeBufferPointer<UInt8>, recordID: String? = nil) throws(RecordParseError) -> PatientRecord {
        do {
            let start = try JSONDocument.checkedBody(bytes, maxBytes: limits.maxDocumentBytes)
            let expected = EntryIdentity.expectedEntries(inBytes: bytes.count)
            var reader = RecordReader(
                scanner: JSONScanner(bytes: bytes, maxDepth: limits.maxDepth, offset: start),
                identity: EntryIdentity(expectedEntries: expected)
            )
            reader.entries.reserveCapacity(expected)
            return try reader.read(recordID: recordID)
        } catch {
            throw RecordParseError.from(error)
        }
    }
}

/// The walk over one record document: sections become entries, every other top-level member is copied
/// (compact) into `otherFieldsJSON`.
struct RecordReader {
    /// What the walk does with the entries of the sections.
    enum SectionReading {
        /// Every entry kept in `entries`: the record read whole.
        case collect
        /// Every entry checked to be an object, and skipped, and where each section's array lies noted in
        /// `sectionArrays`: the head of a record read in passes, its entries then read a type at a time
        /// (`SectionCursor`).
        case locate
    }

    var scanner: JSONScanner
    var identity: EntryIdentity
    var sections: SectionReading = .collect
    /// Told the offset up to which the document has been read, after every entry.
    var readUpTo: ((Int) -> Void)?
    /// Whether anything but whitespace after the record is an error; when false, the walk stops at the
    /// record's end and the caller looks at what follows.
    var endsTheDocument = true
    /// The entries walked, whatever `sections` did with them.
    var entryCount = 0
    var entries: [Entry] = []
    /// Each section's array: its type and its bytes, `[` to `]`, in document order (`locate` only).
    var sectionArrays: [SectionArray] = []
    var otherFields: [UInt8] = [UInt8(ascii: "{")]
    var id: JSONValue?
    var first: JSONValue?
    var last: JSONValue?
    var name: JSONValue?
    var gender: JSONValue?
    var birthdate: JSONValue?
    var medicalRecordNumber: JSONValue?
    var expired: JSONValue?
    var deathdate: JSONValue?

    init(scanner: JSONScanner, identity: EntryIdentity) {
        self.scanner = scanner
        self.identity = identity
    }

    mutating func read(recordID explicitID: String?) throws -> PatientRecord {
        try readTopLevelObject()
        guard let recordID = explicitID ?? ValueNormalisation.identifier(id) else {
            throw RecordParseError.wrongShape(path: "$._id", expected: #"a record id: a string or {"$oid": string}"#)
        }
        let firstName = ValueNormalisation.text(first)
        let lastName = ValueNormalisation.text(last)
        let fullName = [firstName, lastName].compactMap { $0 }.joined(separator: " ")
        otherFields.append(UInt8(ascii: "}"))
        var record = PatientRecord(
            recordID: recordID,
            medicalRecordNumber: ValueNormalisation.identifier(medicalRecordNumber),
            firstName: firstName,
            lastName: lastName,
            name: fullName.isEmpty ? ValueNormalisation.text(name) ?? "" : fullName,
            gender: ValueNormalisation.text(gender),
            birthdate: ValueNormalisation.epochSeconds(birthdate),
            otherFieldsJSON: String(decoding: otherFields, as: UTF8.self),
            entries: entries
        )
        // `expired: true` says they died; `deathdate` says when (and so that they did).
        record.deceasedDate = ValueNormalisation.epochSeconds(deathdate)
        switch expired {
        case .bool(let flag)?: record.deceased = flag || record.deceasedDate != nil
        default: record.deceased = record.deceasedDate != nil ? true : nil
        }
        return record
    }

    private mutating func readTopLevelObject() throws {
        switch scanner.peekKind() {
        case .object:
            break
        case nil where scanner.isAtEnd:
            throw scanner.error("empty document")
        default:
            // Tell "not JSON at all" from "JSON, but not a record": check the whole value first.
            try scanner.skipValue()
            try scanner.expectEnd()
            throw RecordParseError.wrongShape(path: "$", expected: "an object (one patient record)")
        }
        try scanner.beginObject()
        var isFirst = true
        var otherCount = 0
        while let key = try scanner.nextKey(isFirst: &isFirst) {
            let field = RecordField(key, in: scanner)
            if case let .section(type) = field {
                try readSection(type)
                continue
            }
            let valueStart = scanner.offset
            switch field {
            case .id: id = try scanner.parseValue()
            case .first: first = try scanner.parseValue()
            case .last: last = try scanner.parseValue()
            case .name: name = try scanner.parseValue()
            case .gender: gender = try scanner.parseValue()
            case .birthdate: birthdate = try scanner.parseValue()
            case .medicalRecordNumber: medicalRecordNumber = try scanner.parseValue()
            case .expired: expired = try scanner.parseValue()
            case .deathdate: deathdate = try scanner.parseValue()
            case .section, .other: try scanner.skipValue()
            }
            if otherCount > 0 { otherFields.append(UInt8(ascii: ",")) }
            otherCount += 1
            // The key with its quotes, exactly as written, then the value.
            let keyWithQuotes = (key.contents.lowerBound - 1)..<(key.contents.upperBound + 1)
            otherFields.append(contentsOf: UnsafeBufferPointer(rebasing: scanner.bytes[keyWithQuotes]))
            otherFields.append(UInt8(ascii: ":"))
            JSONCompaction.append(UnsafeBufferPointer(rebasing: scanner.bytes[valueStart..<scanner.offset]), to: &otherFields)
        }
        if endsTheDocument { try scanner.expectEnd() }
    }

    /// A section: an array of entry objects. `null` counts as no entries (Gen 1 exporters write null
    /// for empty lists: `"languages": null` in hreader_ns_nancy_smith.json); a section named twice
    /// contributes both lists, as nothing the source sent may be dropped.
    private mutating func readSection(_ type: EntryType) throws {
        switch scanner.peekKind() {
        case .array:
            break
        case .null:
            try scanner.readNull()
            return
        default:
            try scanner.skipValue()
            throw RecordParseError.wrongShape(path: "$.\(type.section)", expected: "an array of entries")
        }
        let arrayStart = scanner.offset
        try scanner.beginArray()
        var isFirst = true
        var index = 0
        while try scanner.nextElement(isFirst: &isFirst) {
            guard scanner.peekKind() == .object else {
                try scanner.skipValue()
                throw RecordParseError.wrongShape(path: "$.\(type.section)[\(index)]", expected: "an entry object")
            }
            switch sections {
            case .locate:
                try scanner.skipValue()
            case .collect:
                entries.append(try readEntry(type))
            }
            index += 1
            entryCount += 1
            readUpTo?(scanner.offset)
        }
        if case .locate = sections { sectionArrays.append(SectionArray(type: type, bytes: arrayStart..<scanner.offset)) }
    }

    private mutating func readEntry(_ type: EntryType) throws -> Entry {
        try Self.readEntry(type, from: &scanner, identity: &identity)
    }

    /// The entry object at the scanner's position, its raw JSON the compacted slice of the source.
    static func readEntry(_ type: EntryType, from scanner: inout JSONScanner, identity: inout EntryIdentity) throws -> Entry {
        let start = scanner.offset
        let fields = try EntryFields.read(from: &scanner)
        let raw = JSONCompaction.string(UnsafeBufferPointer(rebasing: scanner.bytes[start..<scanner.offset]))
        return EntryNormalisation.entry(type, fields: fields, rawJSON: raw, identity: &identity)
    }
}

/// Where a section's array lies in a record document: its type and its bytes, `[` to `]`.
struct SectionArray: Sendable, Equatable {
    let type: EntryType
    let bytes: Range<Int>
}
