#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
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
    /// The `errno` of the first write that failed; nothing more is written after it.
    public private(set) var failure: Int32?
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
        if let error = Self.writeAll(bytes, to: descriptor) { failure = error } else { bytesWritten += bytes.count }
    }

    /// Writes all of `bytes`; the `errno` of a failed write, or nil.
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        bytes.withUnsafeBytes { buffer -> Int32? in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
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
            if let error = ExportFileWriter.writeAll(bytes, to: descriptor) { throw .io("cannot write the export: \(String(cString: strerror(error)))") }
            total += bytes.count
        }
        // A part writes nothing before its patient is found: a member removed meanwhile leaves no comma.
        func part(_ member: String, after separator: [UInt8] = []) throws(StoreError) -> Bool {
            let writer = ExportFileWriter(descriptor: descriptor, exportedAt: exportedAt, prefix: separator)
            guard var writer = try store.exportRecordSync(patientID: member, into: writer) else { return false }
            writer.finish()
            if let error = writer.failure { throw .io("cannot write the export: \(String(cString: strerror(error)))") }
            total += writer.bytesWritten
            return true
        }
        guard person.members.count > 1 else { return try part(patientID) ? total : nil }
        var head = JSONWriter(capacity: 256)
        head.beginObject()
        head.key("format"); head.string("hreaderd-export")
        head.key("version"); head.int(Int64(formatVersion))
        head.key("exported_at"); head.int(exportedAt)
        head.key("person"); head.string(person.head)
        head.key("records")
        head.beginArray()
        try put(head.bytes)
        var first = true
        for member in person.members {
            if try part(member, after: first ? [] : [UInt8(ascii: ",")]) { first = false }
        }
        try put(Array("]}".utf8))
        return total
    }
}
