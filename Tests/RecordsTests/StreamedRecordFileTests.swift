import Foundation
import Records
import HealthRecord
import SyntheticRecords
import TestSupport
import Testing

/// A record file read in passes over its mapped bytes (`StreamedRecordFile`), against the same file parsed
/// whole by `RecordParser`: the same record, the same entries with the same ids, each type's in the same
/// order, the types' merged by date.
@Suite("record files read in passes")
struct StreamedRecordFileTests {
    /// The record parsed whole, and the same file read in passes: its head and its batches.
    private func bothWays(_ bytes: [UInt8]) throws -> (whole: PatientRecord, head: PatientRecord, counted: Int, batches: [[Entry]]) {
        let whole = try RecordParser(limits: .files).parse(bytes)
        return try withTemporaryFile(bytes) { path in
            let file = try StreamedRecordFile(path: path)
            let head = try #require(try file.readHead())
            var batches: [[Entry]] = []
            try file.readEntries(of: head) { batches.append($0) }
            return (whole, head.record, head.entries, batches)
        }
    }

    /// The same entries as the record read whole, each type's in document order.
    private func expectSameEntries(_ streamed: [Entry], as whole: [Entry], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(streamed.sorted { $0.id < $1.id } == whole.sorted { $0.id < $1.id }, sourceLocation: sourceLocation)
        for type in EntryType.allCases {
            #expect(streamed.filter { $0.type == type } == whole.filter { $0.type == type }, "\(type)", sourceLocation: sourceLocation)
        }
    }

    @Test("a generated record of several batches: the head and every entry as the parser gives them, batches of at most 2,048")
    func generatedRecord() throws {
        let generator = SyntheticRecords(seed: 11)
        let bytes = generator.record(for: generator.family()[0], entries: 5_000, shape: .gen1)
        let (whole, head, counted, batches) = try bothWays(bytes)
        #expect(whole.entries.count == 5_000)
        #expect(counted == 5_000)
        #expect(batches.count == 3)
        #expect(batches.allSatisfy { $0.count <= StreamedRecordFile.batchEntries })
        expectSameEntries(Array(batches.joined()), as: whole.entries)
        var withoutEntries = whole
        withoutEntries.entries = []
        #expect(head == withoutEntries)
    }

    @Test("an _id given twice gets the same numbered ids read in passes as read whole, across batches")
    func repeatedIDsAcrossBatches() throws {
        // 2,100 entries, every one of them repeating the `_id` of an entry 1,050 places before it: the
        // repeats fall in the second batch, their first occurrences in the first.
        let json = PatientRecord.record("rep", name: "Ann", entries: (0..<2_100).map { i in
            .entry(.vitalSign, "Pulse", at: 1_000 + Int64(i), value: Double(i), sourceID: "v\(i % 1_050)")
        }).rhexJSON()
        let (whole, _, _, batches) = try bothWays(Array(json.utf8))
        let streamed = Array(batches.joined())
        #expect(streamed == whole.entries)
        #expect(Set(streamed.map(\.id)).count == 2_100)
    }

    @Test("every shared single-record sample reads the same in passes as whole",
          .enabled(if: Samples.available, Samples.missingReason), arguments: Samples.recordFiles)
    func sharedSamples(file: String) throws {
        let (whole, head, counted, batches) = try bothWays(try Samples.bytes(file))
        expectSameEntries(Array(batches.joined()), as: whole.entries)
        #expect(counted == whole.entries.count)
        #expect(head.recordID == whole.recordID)
        #expect(head.otherFieldsJSON == whole.otherFieldsJSON)
        #expect(head.name == whole.name)
    }

    @Test("sections each in date order come out as one list in date order, entries without a date last, each section's own order kept")
    func dateOrderAcrossSections() throws {
        let json = #"""
            {"_id":"d","results":[{"_id":"r1","time":10},{"_id":"r2","time":40},{"_id":"r3"},{"_id":"r4","time":70}],
             "conditions":[{"_id":"c1","start_time":20},{"_id":"c2","start_time":50,"end_time":90}],
             "vital_signs":[{"_id":"v1","time":5},{"_id":"v2","time":45},{"_id":"v3","end_time":60}]}
            """#
        let (whole, _, _, batches) = try bothWays(Array(json.utf8))
        let streamed = Array(batches.joined())
        expectSameEntries(streamed, as: whole.entries)
        #expect(streamed.map(\.sourceID) == ["v1", "r1", "c1", "r2", "v2", "c2", "v3", "r3", "r4"].map { Optional($0) })
        // Whole, the record keeps document order.
        #expect(whole.entries.map(\.sourceID) == ["r1", "r2", "r3", "r4", "c1", "c2", "v1", "v2", "v3"].map { Optional($0) })
    }

    @Test("a type named twice is read array after array: an _id repeated across them is numbered as read whole, even when the second array's entry is older")
    func typeNamedTwice() throws {
        let json = #"{"_id":"t","results":[{"_id":"x","time":50},{"_id":"y","time":60}],"conditions":[{"_id":"c","time":1}],"results":[{"_id":"x","time":5}]}"#
        let (whole, _, counted, batches) = try bothWays(Array(json.utf8))
        let streamed = Array(batches.joined())
        #expect(counted == 4)
        expectSameEntries(streamed, as: whole.entries)
        #expect(Set(streamed.map(\.id)).count == 4)
    }

    @Test("a file of one record a line is not read in passes (nil); a record with anything after it is not either")
    func notOneRecord() throws {
        let lines = #"{"_id":"a","results":[]}"# + "\n" + #"{"_id":"b","results":[]}"# + "\n"
        #expect(try withTemporaryFile(lines) { try StreamedRecordFile(path: $0).readHead() } == nil)
        let trailing = #"{"_id":"a","results":[]} x"#
        #expect(try withTemporaryFile(trailing) { try StreamedRecordFile(path: $0).readHead() } == nil)
        let spaced = "\u{FEFF}\n \n\t" + #"{"_id":"a","results":[{"_id":"e","time":1}]}"# + "\n\n  \n"
        let head = try withTemporaryFile(spaced) { try StreamedRecordFile(path: $0).readHead() }
        #expect(head?.entries == 1)
        #expect(head?.line == 3)
    }

    @Test("bad documents give the error the parser gives for them read whole")
    func badDocuments() throws {
        let cases: [[UInt8]] = [
            Array(#"{"_id":"a","results":[{"_id":"e","time":1},{"_id":"f""#.utf8),         // cut short
            Array(#"{"_id":"a","results":[{"_id":"e"}]"#.utf8) + [0xC3, 0x28, 0x7D],      // invalid UTF-8
            Array(#"{"_id":"a","results":{"_id":"e"}}"#.utf8),                            // a section not an array
            Array(#"{"first":"No id","results":[]}"#.utf8),                              // no _id
            Array("[1,2]".utf8),
            [],
        ]
        for bytes in cases {
            let expected = try #require(parseError(bytes, limits: .files), "\(String(decoding: bytes, as: UTF8.self))")
            let got = withTemporaryFileResult(bytes)
            #expect(got == expected, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    private func withTemporaryFileResult(_ bytes: [UInt8]) -> RecordParseError? {
        do {
            return try withTemporaryFile(bytes) { path -> RecordParseError? in
                let file = try StreamedRecordFile(path: path)
                do throws(RecordParseError) {
                    _ = try file.readHead()
                    return nil
                } catch {
                    return error
                }
            }
        } catch {
            return .notJSON(offset: -1, reason: "\(error)")
        }
    }

    @Test("over the size limit: refused by its size; an error the batch's reader throws comes out as it is")
    func limitsAndHandedErrors() throws {
        let json = #"{"_id":"a","results":[{"_id":"e","time":1},{"_id":"f","time":2}]}"#
        try withTemporaryFile(json) { path in
            let small = try StreamedRecordFile(path: path, parser: RecordParser(limits: ParseLimits(maxDocumentBytes: json.utf8.count - 1)))
            #expect(throws: RecordParseError.tooLarge(bytes: json.utf8.count, maxBytes: json.utf8.count - 1)) { try small.readHead() }
            let exact = try StreamedRecordFile(path: path, parser: RecordParser(limits: ParseLimits(maxDocumentBytes: json.utf8.count)))
            let head = try #require(try exact.readHead())
            #expect(head.entries == 2)
            struct Refused: Error, Equatable {}
            #expect(throws: Refused()) { try exact.readEntries(of: head) { _ in throw Refused() } }
        }
    }

    @Test("a file that no longer holds the record its head was read from is refused before any entry is handed on")
    func changedBetweenPasses() throws {
        let three = #"{"_id":"a","results":[{"_id":"e","time":1},{"_id":"f","time":2},{"_id":"g","time":3}]}"#
        let otherID = #"{"_id":"b","results":[{"_id":"e","time":1},{"_id":"f","time":2}]}"#
        let head = try #require(try withTemporaryFile(three) { try StreamedRecordFile(path: $0).readHead() })
        try withTemporaryFile(otherID) { path in
            let file = try StreamedRecordFile(path: path)
            var read = 0
            #expect(throws: RecordFileError.readFailed(path: path, reason: "the file changed while it was imported")) {
                try file.readEntries(of: head) { read += $0.count }
            }
            #expect(read == 0)
        }
    }

    @Test("a file rewritten in place between the passes with the same record id and number of entries is refused too: the person would be the old file's and the entries the new one's")
    func rewrittenInPlace() throws {
        let before = #"{"_id":"a","first":"Ann","results":[{"_id":"e","time":1},{"_id":"f","time":2}]}"#
        let after = #"{"_id":"a","first":"Bob","results":[{"_id":"e","time":1},{"_id":"f","time":2}]}"#
        try withTemporaryFile(before) { path in
            let file = try StreamedRecordFile(path: path)
            let head = try #require(try file.readHead())
            #expect(head.record.firstName == "Ann")
            // Written over, same length, the same inode: what `>` in a shell does.
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.write(contentsOf: Data(after.utf8))
            try handle.close()
            #expect(throws: RecordFileError.readFailed(path: path, reason: "the file changed while it was imported")) {
                try file.readEntries(of: head) { _ in }
            }
        }
        // Unchanged, the same file reads through.
        try withTemporaryFile(before) { path in
            let file = try StreamedRecordFile(path: path)
            let head = try #require(try file.readHead())
            var read = 0
            try file.readEntries(of: head) { read += $0.count }
            #expect(read == 2)
        }
    }

    @Test("a section rewritten in place to end earlier, the record's own bytes the same, is refused as it is read")
    func sectionRewrittenInPlace() throws {
        let before = #"{"_id":"a","results":[{"_id":"e","time":1},{"_id":"f","time":2}]}"#
        let after = #"{"_id":"a","results":[{"_id":"e","time":1}],"x":"yyyyyyyyyyyyyy"}"#
        #expect(before.utf8.count == after.utf8.count)
        try withTemporaryFile(before) { path in
            let file = try StreamedRecordFile(path: path)
            let head = try #require(try file.readHead())
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.write(contentsOf: Data(after.utf8))
            try handle.close()
            #expect(throws: RecordFileError.readFailed(path: path, reason: "the file changed while it was imported")) {
                try file.readEntries(of: head) { _ in }
            }
        }
    }

    @Test("UTF-8 is checked a chunk at a time: a character across a chunk's end is whole, a bad byte just after it is found")
    func validationAcrossChunks() throws {
        // A record padded so that a three-byte character (€) starts two bytes before the 8 MiB mark.
        let chunk = 8 << 20
        let opening = Array(#"{"_id":"a","note":""#.utf8)
        var bytes = opening + [UInt8](repeating: UInt8(ascii: "x"), count: chunk - 2 - opening.count)
        bytes += Array("€".utf8)
        let closing = Array(#"","results":[{"_id":"e","time":1}]}"#.utf8)
        let good = bytes + closing
        #expect(try withTemporaryFile(good) { try StreamedRecordFile(path: $0).readHead() }?.entries == 1)
        // The same with the € cut after its first two bytes: invalid at the character's start.
        var bad = good
        bad[chunk] = UInt8(ascii: "y")
        #expect(withTemporaryFileResult(bad) == .invalidUTF8(offset: chunk - 2))
        #expect(parseError(bad, limits: .files) == .invalidUTF8(offset: chunk - 2))
    }
}
