import HealthRecord
import Store

/// The export document (`ExportDocument`) written to a file descriptor as the store hands its rows over,
/// a chunk at a time: `hreaderd export` of a 1,000,000-entry record built the whole 514 MB document in
/// memory, about 2 GB at its peak; written as it is read, the command holds about one chunk of it.
public struct ExportFileWriter: RecordExportWriter {
    /// Written out once this much is pending.
    public static let chunkBytes = 1 << 20

    private var document: ExportDocument
    private let descriptor: Int32
    /// Written before the first bytes of the document (the comma between two parts of a person's export).
    private var prefix: [UInt8]
    /// The first write that failed; nothing more is written after it.
    public private(set) var failure: FileSystem.Failure?
    public private(set) var bytesWritten = 0

    public init(descriptor: Int32, exportedAt: Int64, prefix: [UInt8] = []) {
        self.descriptor = descriptor
        self.prefix = prefix
        document = ExportDocument(exportedAt: exportedAt)
    }

    public mutating func patient(_ patient: ExportedPatient) { document.patient(patient); flushIfFull() }
    public mutating func entry(_ entry: ExportedEntry) { document.entry(entry); flushIfFull() }
    public mutating func post(_ post: TimelinePost) { document.post(post); flushIfFull() }
    public mutating func kept(_ resource: KeptResource) { document.kept(resource); flushIfFull() }
    public mutating func annotation(_ annotation: Annotation) { document.annotation(annotation); flushIfFull() }
    public mutating func document(_ clinical: ClinicalDocument) { document.document(clinical); flushIfFull() }
    public mutating func reading(_ reading: Reading) { document.reading(reading); flushIfFull() }

    /// Closes the document and writes what is left of it.
    public mutating func finish() {
        emit(document.takeBytes() + document.finished())
    }

    private mutating func flushIfFull() {
        guard document.pendingBytes >= Self.chunkBytes else { return }
        emit(document.takeBytes())
    }

    private mutating func emit(_ bytes: [UInt8]) {
        guard failure == nil else { return }
        let bytes = prefix + bytes
        prefix = []
        do throws(FileSystem.Failure) {
            try FileSystem.writeAll(descriptor, bytes, path: "the export")
            bytesWritten += bytes.count
        } catch {
            failure = error
        }
    }
}

extension ExportDocument {
    /// The export of the person `patientID` belongs to (the bytes of `encodePersonSync`), written to
    /// `descriptor` as it is read, each patient's part in one snapshot; the bytes written, or nil (nothing
    /// written) when there is no such patient.
    public static func writePerson(patientID: String, from store: Store, exportedAt: Int64 = Store.now(),
                                   to descriptor: Int32) throws(StoreError) -> Int? {
        guard let person = try store.personSync(of: patientID) else { return nil }
        var total = 0
        func put(_ bytes: [UInt8]) throws(StoreError) {
            do { try FileSystem.writeAll(descriptor, bytes, path: "the export") } catch { throw .io("cannot \(error)") }
            total += bytes.count
        }
        // A part writes nothing before its patient is found: a member removed meanwhile leaves no comma.
        func part(_ member: String, after separator: [UInt8] = []) throws(StoreError) -> Bool {
            let writer = ExportFileWriter(descriptor: descriptor, exportedAt: exportedAt, prefix: separator)
            guard var writer = try store.exportRecordSync(patientID: member, into: writer) else { return false }
            writer.finish()
            if let failure = writer.failure { throw .io("cannot \(failure)") }
            total += writer.bytesWritten
            return true
        }
        guard person.members.count > 1 else { return try part(patientID) ? total : nil }
        var head = JSONWriter(capacity: 256)
        beginPerson(person.head, exportedAt: exportedAt, into: &head)
        try put(head.bytes)
        var first = true
        for member in person.members {
            if try part(member, after: first ? [] : [UInt8(ascii: ",")]) { first = false }
        }
        try put(Array("]}".utf8))
        return total
    }
}
