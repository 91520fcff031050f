/// A person's record as it is handed to a doctor (the International Patient Summary, the CCD): the person
/// as the timeline shows them. Every linked patient's entries, each fact once, oldest first; the entries
/// the person marked wrong left out and counted; their notes on entries; their own readings.
public struct SharedRecord: Sendable {
    /// Who the record is about: the person's head patient, with every linked part's identifiers.
    public struct Person: Sendable, Equatable {
        public var id: String
        public var name: String
        public var firstName: String?
        public var lastName: String?
        /// `M`, `F`, or the source's word.
        public var gender: String?
        public var birthdate: Int64?
        public var medicalRecordNumber: String?
        public var identifiers: [PatientIdentifier]
        /// The person died; `deceasedDate` says when, when a source said it.
        public var deceased: Bool
        public var deceasedDate: Int64?

        public init(id: String, name: String, firstName: String? = nil, lastName: String? = nil, gender: String? = nil,
                    birthdate: Int64? = nil, medicalRecordNumber: String? = nil, identifiers: [PatientIdentifier] = [],
                    deceased: Bool = false, deceasedDate: Int64? = nil) {
            self.id = id
            self.name = name
            self.firstName = firstName
            self.lastName = lastName
            self.gender = gender
            self.birthdate = birthdate
            self.medicalRecordNumber = medicalRecordNumber
            self.identifiers = identifiers
            self.deceased = deceased || deceasedDate != nil
            self.deceasedDate = deceasedDate
        }
    }

    /// One entry with what the person wrote on it.
    public struct Item: Sendable, Equatable {
        public var entry: StoredEntry
        /// What the source sent (JSON), for the code displays it gave.
        public var rawJSON: String
        public var note: String?

        public init(entry: StoredEntry, rawJSON: String = "{}", note: String? = nil) {
            self.entry = entry
            self.rawJSON = rawJSON
            self.note = note
        }
    }

    public var person: Person
    /// The sources the parts came from, by name.
    public var sources: [String]
    /// In (date, id) order, undated last.
    public var items: [Item]
    /// The person's own readings (patient-reported vital signs), oldest first.
    public var readings: [Reading]
    /// How many entries of each type the person marked wrong (left out).
    public var struck: [EntryType: Int]

    public init(person: Person, sources: [String] = [], items: [Item] = [], readings: [Reading] = [], struck: [EntryType: Int] = [:]) {
        self.person = person
        self.sources = sources
        self.items = items
        self.readings = readings
        self.struck = struck
    }
}
