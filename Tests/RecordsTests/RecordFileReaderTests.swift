import Foundation
import Records
import HealthRecord
import TestSupport
import Testing

/// Record files: one record (pretty or not) or one record per line, read as a stream.
@Suite("record files")
struct RecordFileReaderTests {
    /// A one-line record whose one result is worth 1.5, with `extra` fields after it.
    private func record(_ id: String, _ extra: String? = nil) -> String {
        PatientRecord.record(id, name: "P\(id)", entries: [.entry(.result, value: 1.5, sourceID: "e")]).rhexJSON(extra: extra)
    }

    @Test("one record per line: each with its line number; a bad line is an error and reading goes on")
    func linesWithBadOne() throws {
        let text = [record("a"), record("b"), "", #"{"_id":"c","results":[}"#, "   ", record("d"), "[1,2]", record("e")].joined(separator: "\n") + "\n"
        let items = try withTemporaryFile(text) { path in try RecordFileReader(path: path).readAll() }
        #expect(items.map(\.line) == [1, 2, 4, 6, 7, 8])
        #expect(try items[0].result.get().recordID == "a")
        #expect(try items[1].result.get().recordID == "b")
        guard case .failure(.notJSON)? = items.dropFirst(2).first?.result else {
            Issue.record("line 4 should be notJSON, got \(items[2].result)")
            return
        }
        #expect(try items[3].result.get().recordID == "d")
        guard case .failure(.wrongShape(path: "$", _)) = items[4].result else {
            Issue.record("line 7 should be wrongShape, got \(items[4].result)")
            return
        }
        #expect(try items[5].result.get().entries.first?.value == 1.5)
    }

    @Test("a broken first line does not hide the records after it")
    func brokenFirstLine() throws {
        let text = #"{"_id":"a","first":"Tru"# + "\n" + record("b") + "\n" + record("c")
        let (items, layout) = try withTemporaryFile(text) { path in
            let reader = try RecordFileReader(path: path)
            return (try reader.readAll(), reader.layout)
        }
        #expect(layout == .lines)
        #expect(items.map(\.line) == [1, 2, 3])
        guard case .failure(.notJSON) = items[0].result else {
            Issue.record("line 1 should be notJSON")
            return
        }
        #expect(try items.dropFirst().map { try $0.result.get().recordID } == ["b", "c"])
    }

    @Test("a pretty-printed record over many lines is one record, at its first line")
    func prettyDocument() throws {
        let text = "\n\n{\n  \"_id\": \"p\",\n  \"first\": \"Ann\",\n  \"vital_signs\": [\n    {\"value\": {\"scalar\": \"72\"}}\n  ]\n}\n\n"
        let (items, layout) = try withTemporaryFile(text) { path in
            let reader = try RecordFileReader(path: path)
            return (try reader.readAll(), reader.layout)
        }
        #expect(layout == .document)
        #expect(items.count == 1)
        #expect(items.first?.line == 3)
        let parsed = try #require(try items.first?.result.get())
        #expect(parsed.name == "Ann")
        #expect(parsed.entries.first?.value == 72)
        #expect(parsed.entries.first?.rawJSON == #"{"value":{"scalar":"72"}}"#)
    }

    @Test("a broken pretty-printed record is one error, with offsets into the file")
    func brokenDocument() throws {
        let text = "{\n  \"_id\": \"p\",\n  \"first\": \n}\n"
        let items = try withTemporaryFile(text) { path in try RecordFileReader(path: path).readAll() }
        #expect(items.count == 1)
        guard case let .failure(.notJSON(offset, _)) = items[0].result else {
            Issue.record("expected notJSON, got \(items[0].result)")
            return
        }
        #expect(offset == Array(text.utf8).firstIndex(of: UInt8(ascii: "}")))
    }

    @Test("CRLF line ends and a last line without one")
    func lineEnds() throws {
        let text = record("a") + "\r\n" + record("b") + "\r\n" + record("c")
        let items = try withTemporaryFile(text) { path in try RecordFileReader(path: path).readAll() }
        #expect(try items.map { try $0.result.get().recordID } == ["a", "b", "c"])
    }

    @Test("an empty or blank file has no records")
    func empty() throws {
        #expect(try withTemporaryFile("") { try RecordFileReader(path: $0).readAll() }.isEmpty)
        #expect(try withTemporaryFile("\n  \n") { try RecordFileReader(path: $0).readAll() }.isEmpty)
    }

    @Test("a line over the size limit is an error for that line only, and is never held in memory")
    func overlongLine() throws {
        let limits = ParseLimits(maxDocumentBytes: 200)
        let long = #"{"_id":"x","pad":""# + String(repeating: "z", count: 3 * (1 << 20)) + #""}"#
        let text = record("a") + "\n" + long + "\n" + record("b") + "\n"
        let items = try withTemporaryFile(text) { path in
            try RecordFileReader(path: path, parser: RecordParser(limits: limits)).readAll()
        }
        #expect(items.map(\.line) == [1, 2, 3])
        #expect(items[1].result.failure == .tooLarge(bytes: long.utf8.count, maxBytes: 200))
        #expect(try items[2].result.get().recordID == "b")
    }

    @Test("a one-record file over the size limit is refused by its size")
    func oversizeDocument() throws {
        let text = "{\n" + String(repeating: "  \"pad\": \"zzzzzzzzzz\",\n", count: 20) + "  \"_id\": \"x\"\n}\n"
        let items = try withTemporaryFile(text) { path in
            try RecordFileReader(path: path, parser: RecordParser(limits: ParseLimits(maxDocumentBytes: 100))).readAll()
        }
        #expect(items.count == 1)
        #expect(items[0].result.failure == .tooLarge(bytes: text.utf8.count, maxBytes: 100))
    }

    @Test("a missing file or a directory cannot be opened")
    func cannotOpen() throws {
        #expect(throws: RecordFileError.cannotOpen(path: "/nonexistent/record.json", reason: "No such file or directory")) {
            try RecordFileReader(path: "/nonexistent/record.json")
        }
        #expect(throws: RecordFileError.cannotOpen(path: "/tmp", reason: "is a directory")) {
            try RecordFileReader(path: "/tmp")
        }
    }

    @Test("reading streams: a file larger than the read buffer, many records, each line once")
    func largeFile() throws {
        let lines = (0..<3_000).map { record("r\($0)", #""pad":"\#(String(repeating: "p", count: 400))""#) }
        let items = try withTemporaryFile(lines.joined(separator: "\n")) { path in try RecordFileReader(path: path).readAll() }
        #expect(items.count == 3_000)
        #expect(items.map(\.line) == Array(1...3_000))
        #expect(try items.map { try $0.result.get().recordID } == (0..<3_000).map { "r\($0)" })
    }

    @Test("the sample files: hReader's pretty record is one document, the server fixture 500 lines",
          .enabled(if: Samples.available, Samples.missingReason))
    func samples() throws {
        let henry = try RecordFileReader(path: Samples.path("hreader_hs_henry_smith.json"))
        let henryItems = try henry.readAll()
        #expect(henry.layout == .document)
        #expect(henryItems.map(\.line) == [1])
        #expect(try henryItems[0].result.get() == Samples.record("hreader_hs_henry_smith.json"))

        let rosa = try RecordFileReader(path: Samples.path("hds_v2.1.1_rosa.json"))
        #expect(try rosa.readAll().map { try $0.result.get().name } == ["Rosa Vasquez"])
        #expect(rosa.layout == .document)

        let fixture = try RecordFileReader(path: Samples.path(Samples.fixture500))
        let items = try fixture.readAll()
        #expect(fixture.layout == .lines)
        #expect(items.map(\.line) == Array(1...500))
        let records = try items.map { try $0.result.get() }
        #expect(records.map(\.medicalRecordNumber) == (1...500).map { String($0) })
    }
}

extension Result {
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
