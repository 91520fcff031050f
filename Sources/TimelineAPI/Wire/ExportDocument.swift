import HealthRecord
import Store

/// The whole normalised record of one patient as one JSON document (`/patients/{id}/export.json`,
/// `hreaderd export`): every entry with its raw source JSON and everything the person posted, so that
/// they can always take all their data out. Written as the store hands the rows over.
public struct ExportDocument: RecordExportWriter {
    public static let formatVersion = 1

    private var json = JSONWriter(capacity: 64 * 1024)
    private var section = Section.head
    private let exportedAt: Int64

    private enum Section { case head, entries, posts, kept, annotations, documents, readings }

    public init(exportedAt: Int64) { self.exportedAt = exportedAt }

    /// The document; nil when the store had no such patient.
    public static func encode(patientID: String, from store: Store, exportedAt: Int64 = Store.now()) async throws(StoreError) -> [UInt8]? {
        try await store.exportRecord(patientID: patientID, into: ExportDocument(exportedAt: exportedAt))?.finished()
    }

    public static func encodeSync(patientID: String, from store: Store, exportedAt: Int64 = Store.now()) throws(StoreError) -> [UInt8]? {
        try store.exportRecordSync(patientID: patientID, into: ExportDocument(exportedAt: exportedAt))?.finished()
    }

    /// The export of the person `patientID` belongs to: for a person of one, that patient's document; for
    /// patients linked into one person, `{"format", "version", "exported_at", "person", "records": [one
    /// document a patient]}`, each part whole, as its source keeps it.
    public static func encodePerson(patientID: String, from store: Store, exportedAt: Int64 = Store.now()) async throws(StoreError) -> [UInt8]? {
        guard let person = try await store.person(of: patientID) else { return nil }
        guard person.members.count > 1 else { return try await encode(patientID: patientID, from: store, exportedAt: exportedAt) }
        var parts: [[UInt8]] = []
        for member in person.members {
            if let part = try await encode(patientID: member, from: store, exportedAt: exportedAt) { parts.append(part) }
        }
        return wrap(person: person.head, parts: parts, exportedAt: exportedAt)
    }

    public static func encodePersonSync(patientID: String, from store: Store, exportedAt: Int64 = Store.now()) throws(StoreError) -> [UInt8]? {
        guard let person = try store.personSync(of: patientID) else { return nil }
        guard person.members.count > 1 else { return try encodeSync(patientID: patientID, from: store, exportedAt: exportedAt) }
        var parts: [[UInt8]] = []
        for member in person.members {
            if let part = try encodeSync(patientID: member, from: store, exportedAt: exportedAt) { parts.append(part) }
        }
        return wrap(person: person.head, parts: parts, exportedAt: exportedAt)
    }

    /// A person's export up to its `records` array, opened: one patient's document an element.
    static func beginPerson(_ person: String, exportedAt: Int64, into json: inout JSONWriter) {
        json.beginObject()
        json.key("format"); json.string("hreaderd-export")
        json.key("version"); json.int(Int64(formatVersion))
        json.key("exported_at"); json.int(exportedAt)
        json.key("person"); json.string(person)
        json.key("records")
        json.beginArray()
    }

    private static func wrap(person: String, parts: [[UInt8]], exportedAt: Int64) -> [UInt8] {
        var json = JSONWriter(capacity: parts.reduce(256) { $0 + $1.count + 1 })
        beginPerson(person, exportedAt: exportedAt, into: &json)
        for part in parts { json.raw(part) }
        json.endArray()
        json.endObject()
        return json.bytes
    }

    public mutating func patient(_ patient: ExportedPatient) {
        json.beginObject()
        json.key("format"); json.string("hreaderd-export")
        json.key("version"); json.int(Int64(Self.formatVersion))
        json.key("exported_at"); json.int(exportedAt)
        json.key("patient"); json.beginObject()
        json.key("id"); json.string(patient.id)
        json.key("source"); json.string(patient.sourceName)
        json.key("record_id"); json.string(patient.recordID)
        json.key("medical_record_number"); json.string(patient.medicalRecordNumber)
        json.key("name"); json.string(patient.name)
        json.key("first_name"); json.string(patient.firstName)
        json.key("last_name"); json.string(patient.lastName)
        json.key("gender"); json.string(patient.gender)
        json.key("birthdate"); json.int(patient.birthdate)
        json.key("deceased"); json.bool(patient.deceased)
        json.key("deceased_date"); json.int(patient.deceasedDate)
        json.key("imported_at"); json.int(patient.importedAt)
        json.key("updated_at"); json.int(patient.updatedAt)
        json.key("entry_count"); json.int(patient.entryCount)
        json.key("other_fields"); json.raw(patient.otherFieldsJSON)
        json.key("identifiers"); json.beginArray()
        for identifier in patient.identifiers {
            json.beginObject()
            json.key("system"); json.string(identifier.system)
            json.key("value"); json.string(identifier.value)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        json.key("entries"); json.beginArray()
        section = .entries
    }

    public mutating func entry(_ exported: ExportedEntry) {
        let entry = exported.entry
        json.beginObject()
        json.key("id"); json.string(entry.id)
        json.key("type"); json.string(entry.type.rawValue)
        json.key("description"); json.string(entry.description)
        json.key("date"); json.int(entry.date)
        json.key("time"); json.int(entry.time)
        json.key("start_time"); json.int(entry.startTime)
        json.key("end_time"); json.int(entry.endTime)
        json.key("status"); json.string(entry.status)
        json.key("value"); json.number(entry.value)
        json.key("text_value"); json.string(entry.textValue)
        json.key("units"); json.string(entry.units)
        json.key("codes"); json.raw(entry.codesJSON)
        ResultDetailJSON.write(entry, to: &json)
        json.key("source_id"); json.string(exported.sourceEntryID)
        json.key("raw"); json.raw(exported.rawJSON)
        json.endObject()
    }

    public mutating func post(_ post: TimelinePost) {
        startPosts()
        json.beginObject()
        json.key("id"); json.string(post.id)
        json.key("type"); json.string(post.kind.rawValue)
        json.key("created_at"); json.int(post.createdAt)
        json.key("data"); json.raw(post.dataJSON)
        json.endObject()
    }

    private mutating func startPosts() {
        guard section == .entries else { return }
        json.endArray()
        json.key("timeline_entries"); json.beginArray()
        section = .posts
    }

    public mutating func kept(_ resource: KeptResource) {
        startKept()
        json.beginObject()
        json.key("id"); json.string(resource.id)
        json.key("type"); json.string(resource.type)
        json.key("raw"); json.raw(resource.rawJSON)
        json.endObject()
    }

    /// Resources of the patient kept but not shown (FHIR claims, reports…), verbatim.
    private mutating func startKept() {
        startPosts()
        guard section == .posts else { return }
        json.endArray()
        json.key("kept_resources"); json.beginArray()
        section = .kept
    }

    public mutating func annotation(_ annotation: Annotation) {
        startAnnotations()
        AnnotationJSON.write(annotation, to: &json, withEntryID: true)
    }

    private mutating func startAnnotations() {
        startKept()
        guard section == .kept else { return }
        json.endArray()
        json.key("annotations"); json.beginArray()
        section = .annotations
    }

    public mutating func document(_ document: ClinicalDocument) {
        startDocuments()
        DocumentJSON.write(document, to: &json)
    }

    /// Imported documents' text (C-CDA, C32), narrative-only sections included.
    private mutating func startDocuments() {
        startAnnotations()
        guard section == .annotations else { return }
        json.endArray()
        json.key("documents"); json.beginArray()
        section = .documents
    }

    public mutating func reading(_ reading: Reading) {
        startReadings()
        ReadingJSON.write(reading, to: &json)
    }

    /// The person's own readings (self-reported vital signs), values as entered.
    private mutating func startReadings() {
        startDocuments()
        guard section == .documents else { return }
        json.endArray()
        json.key("readings"); json.beginArray()
        section = .readings
    }

    /// What is written so far, handed over (a long record's export is sent as it is written: `ExportStream`).
    mutating func takeBytes() -> [UInt8] { json.takeBytes() }

    /// The bytes written but not yet taken.
    var pendingBytes: Int { json.bytes.count }

    /// Closes the document.
    func finished() -> [UInt8] {
        var document = self
        document.startReadings()
        document.json.endArray()
        document.json.endObject()
        return document.json.bytes
    }
}
