import HealthRecord
import Testing
@testable import Records

/// A type's entries read from where the first pass found its arrays (`SectionCursor`, `EntriesInDateOrder`).
@Suite("section cursors")
struct SectionCursorTests {
    private func merged(_ json: String, arrays: [SectionArray]) throws -> [String?] {
        let bytes = Array(json.utf8)
        return try bytes.withUnsafeBufferPointer { buffer in
            var released: [Range<Int>] = []
            var entries = try EntriesInDateOrder(bytes: buffer, arrays: arrays, maxDepth: 64, identity: EntryIdentity(),
                                                 release: { from, before in released.append(from..<before); return before })
            var ids: [String?] = []
            while let entry = try entries.next() { ids.append(entry.sourceID) }
            #expect(entries.count == ids.count)
            return ids
        }
    }

    @Test("arrays of one type are read one after the other; the types merged by date")
    func mergesTypes() throws {
        let json = #"[{"_id":"a","time":3},{"_id":"b","time":9}] [{"_id":"c","time":5}] [{"_id":"d","time":1}]"#
        let ids = try merged(json, arrays: [
            SectionArray(type: .result, bytes: 0..<43), SectionArray(type: .condition, bytes: 44..<66),
            SectionArray(type: .result, bytes: 67..<89),
        ])
        // The results' second array comes after their first, whatever its dates: c (a condition) is read between.
        #expect(ids == ["a", "c", "b", "d"])
    }

    @Test("an array that does not end where it was found (the file changed) is refused")
    func movedArray() throws {
        let json = #"[{"_id":"a","time":3}]   "#
        #expect(try merged(json, arrays: [SectionArray(type: .result, bytes: 0..<22)]) == ["a"])
        #expect(throws: SectionCursor.Moved.self) { try merged(json, arrays: [SectionArray(type: .result, bytes: 0..<25)]) }
    }
}
