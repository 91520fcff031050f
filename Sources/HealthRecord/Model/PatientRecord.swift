/// A patient's whole record as a source delivers it, normalised: what one import writes in one
/// transaction.
public struct PatientRecord: Sendable, Equatable {
    /// The identity of the record within its source: the record's `_id` for files, the feed's record id
    /// (the MRN) for an RHEx source.
    public var recordID: String
    public var medicalRecordNumber: String?
    public var firstName: String?
    public var lastName: String?
    /// "first last", else the record's `name`.
    public var name: String
    public var gender: String?
    /// Epoch seconds; may be negative.
    public var birthdate: Int64?
    /// Every top-level field that is not an entry section (demographics, other sections), as compact JSON,
    /// so that the export holds all the source had.
    public var otherFieldsJSON: String
    public var entries: [Entry]
    /// The source's identifiers of the person (FHIR), by which a later import finds them again.
    public var identifiers: [PatientIdentifier] = []
    /// Resources of the person that are not entries (FHIR), kept verbatim.
    public var keptResources: [KeptResource] = []
    /// Documents the record was read from (C-CDA, C32), with their sections' text.
    public var documents: [ClinicalDocument] = []
    /// The time the record speaks for (a document's effective time): a merge of a record older than what
    /// the store holds adds what is new and changes nothing it already knows from a newer one.
    public var asOf: Int64?
    /// The source says the person has died (FHIR `deceased[x]`, C-CDA `sdtc:deceasedInd`, RHEx `expired`);
    /// nil when it says nothing either way.
    public var deceased: Bool?
    /// When they died (epoch seconds), when the source says.
    public var deceasedDate: Int64?

    public init(
        recordID: String, medicalRecordNumber: String? = nil, firstName: String? = nil, lastName: String? = nil,
        name: String, gender: String? = nil, birthdate: Int64? = nil, otherFieldsJSON: String = "{}",
        entries: [Entry] = []
    ) {
        self.recordID = recordID
        self.medicalRecordNumber = medicalRecordNumber
        self.firstName = firstName
        self.lastName = lastName
        self.name = name
        self.gender = gender
        self.birthdate = birthdate
        self.otherFieldsJSON = otherFieldsJSON
        self.entries = entries
    }
}
