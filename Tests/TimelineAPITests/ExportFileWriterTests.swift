import Foundation
import HealthRecord
import Store
import TestSupport
import Testing
@testable import TimelineAPI

/// `hreaderd export` writes the export as it reads it (`ExportDocument.writePerson`): the same bytes as the
/// document built whole, for one patient and for a person of several, in many chunks.
@Suite("the export written to a file as it is read")
struct ExportFileWriterTests {
    static let exportedAt: Int64 = 1_700_000_000

    /// What `writePerson` writes to a temporary file, and what it returns.
    static func written(_ patientID: String, from store: Store) throws -> (bytes: [UInt8], returned: Int?) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString)").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer { unlink(path) }
        let returned = try ExportDocument.writePerson(patientID: patientID, from: store, exportedAt: exportedAt, to: descriptor)
        close(descriptor)
        return (Array(try Data(contentsOf: URL(fileURLWithPath: path))), returned)
    }

    /// A record whose export is several chunks long: every entry carries a 1 KB source.
    static func longRecord(id: String, entries: Int) -> PatientRecord {
        let padding = String(repeating: "x", count: 1_000)
        return .record(id, name: "Long \(id)", entries: (0..<entries).map { index in
            .entry(.result, "Result \(index)", id: "e\(index)", at: 1_000_000 + Int64(index) * 60, value: Double(index),
                   raw: #"{"_id":"e\#(index)","pad":"\#(padding)"}"#)
        })
    }

    @Test("one patient: the bytes of the document built whole, written in several chunks")
    func onePatient() async throws {
        let dir = TemporaryDirectory()
        let (store, _) = try TestStore.create(at: dir.file("state"))
        defer { store.close() }
        let patientID = try store.importRecordSync(Self.longRecord(id: "a", entries: 3_000)).patientID
        _ = try await store.addTimelinePost(patientID: patientID, kind: .levels, dataJSON: #"{"pain":"3"}"#)
        let whole = try #require(try ExportDocument.encodePersonSync(patientID: patientID, from: store, exportedAt: Self.exportedAt))
        #expect(whole.count > 3 * ExportFileWriter.chunkBytes)
        let (bytes, returned) = try Self.written(patientID, from: store)
        #expect(bytes == whole)
        #expect(returned == whole.count)
    }

    @Test("a person of two linked patients: the same wrapper and parts as built whole; an unknown patient writes nothing")
    func linkedPerson() async throws {
        let dir = TemporaryDirectory()
        let (store, _) = try TestStore.create(at: dir.file("state"))
        defer { store.close() }
        let first = try store.importRecordSync(Self.longRecord(id: "a", entries: 1_500)).patientID
        let second = try store.importRecordSync(Self.longRecord(id: "b", entries: 10)).patientID
        guard case .success = try await store.linkPatient(second, into: first) else { Issue.record("not linked"); return }
        let whole = try #require(try ExportDocument.encodePersonSync(patientID: first, from: store, exportedAt: Self.exportedAt))
        #expect(String(decoding: whole.prefix(200), as: UTF8.self).contains(#""records":[{"#))
        let (bytes, returned) = try Self.written(first, from: store)
        #expect(bytes == whole)
        #expect(returned == whole.count)
        let (nothing, none) = try Self.written("p_nobody", from: store)
        #expect(nothing.isEmpty && none == nil)
    }

    @Test("a write that fails (a closed descriptor) is an error, not a short document taken for a whole one")
    func failedWrite() throws {
        let dir = TemporaryDirectory()
        let (store, _) = try TestStore.create(at: dir.file("state"))
        defer { store.close() }
        let patientID = try store.importRecordSync(Self.longRecord(id: "a", entries: 10)).patientID
        #expect(throws: StoreError.self) {
            _ = try ExportDocument.writePerson(patientID: patientID, from: store, exportedAt: Self.exportedAt, to: -1)
        }
    }
}
