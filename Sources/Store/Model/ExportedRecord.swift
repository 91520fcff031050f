import HealthRecord

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
    /// The source's identifiers of the person (FHIR).
    public var identifiers: [PatientIdentifier] = []
    /// The source says the person has died; when, if it says.
    public var deceased = false
    public var deceasedDate: Int64?
}

/// An entry as the export reads it: the normalised fields, and what the source sent, verbatim.
public struct ExportedEntry: Sendable {
    public var entry: StoredEntry
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
    /// The patient's resources that are kept and not shown (FHIR), after the posts.
    mutating func kept(_ resource: KeptResource)
    /// The person's annotations (orphaned ones too).
    mutating func annotation(_ annotation: Annotation)
    /// Imported documents' text, newest first.
    mutating func document(_ document: ClinicalDocument)
    /// The person's own readings, oldest first, last.
    mutating func reading(_ reading: Reading)
}
