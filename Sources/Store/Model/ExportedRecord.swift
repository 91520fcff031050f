/// A patient as the export reads it: every stored field.
public struct ExportedPatient: Sendable {
    public var id: String
    public var sourceName: String
    public var recordID: String
    public var medicalRecordNumber: String?
    public var name: String
    public var firstName: String?
    public var lastName: String?
    public var gender: String?
    public var birthdate: Int64?
    public var importedAt: Int64
    public var updatedAt: Int64
    public var entryCount: Int64
    /// The record's other top-level fields, as stored (JSON).
    public var otherFieldsJSON: String
}

/// An entry as the export reads it: the normalised fields and the source's JSON, verbatim.
public struct ExportedEntry: Sendable {
    public var id: String
    public var type: String
    public var description: String?
    public var date: Int64?
    public var time: Int64?
    public var startTime: Int64?
    public var endTime: Int64?
    public var status: String?
    public var value: Double?
    public var textValue: String?
    public var units: String?
    public var codesJSON: String
    /// The entry's `_id` in the source.
    public var sourceEntryID: String?
    public var rawJSON: String
}

/// Receives one patient's whole record as the store reads it, part by part, in one snapshot: the
/// patient, then each entry (in date order), then each post. The export document's encoder is one.
public protocol RecordExportWriter: Sendable {
    mutating func patient(_ patient: ExportedPatient)
    mutating func entry(_ entry: ExportedEntry)
    mutating func post(_ post: TimelinePost)
}
