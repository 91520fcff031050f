import HealthRecord
import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// The timeline's pages byte for byte as they are (issue 41): every page of a record with annotations, the
/// person's readings and posts, vital signs, spanning and late entries, alone and linked with a second source's
/// record, pinned by their length and a hash (the ids the store draws at random left out). Taken when the read path was made faster, after
/// `bench/same-pages.py` had found that build's pages alike to the one before on generated records: a change
/// meant to keep the pages must keep these figures; a change of the timeline contract changes them on
/// purpose (take them again, and say so in its commit).
@Suite("timeline pages byte for byte")
struct PageBytesTests {
    /// FNV-1a, 64 bits: a fingerprint of the bytes (not a secret).
    static func fingerprint(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }

    /// The bytes with the ids the store draws at random (the person's readings, `r_…`, and posts, `t_…`) made
    /// all `x` (the same length): what is left is the same on every run.
    static func withoutRandomIDs(_ bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        var index = 0
        while index + 3 < out.count {
            if out[index] == UInt8(ascii: "\""), out[index + 1] == UInt8(ascii: "r") || out[index + 1] == UInt8(ascii: "t"),
               out[index + 2] == UInt8(ascii: "_") {
                index += 1
                while index < out.count, out[index] != UInt8(ascii: "\"") { out[index] = UInt8(ascii: "x"); index += 1 }
            }
            index += 1
        }
        return out
    }

    /// A second source's record of the same person: some of its facts are the long record's (same type, codes
    /// and date), some its own, one vital sign the same reading.
    static func otherSource() -> PatientRecord {
        let base = TimelineStreamTests.base
        var entries: [Entry] = []
        for index in stride(from: 1, to: 1_300, by: 37) where TimelineStreamTests.types[index % 12] == .result {
            entries.append(.entry(.result, "result \(index) elsewhere", id: "x\(index)", at: base + Int64(index / 3) * 3_600,
                                  status: "completed", value: Double(index) / 10, units: "mg/dL", codes: ["LOINC": ["\(index)-1"]]))
        }
        entries.append(.entry(.vitalSign, "Heart Rate", id: "x-hr", at: base + 7_200, value: 99, units: "/min"))
        entries.append(.entry(.condition, "Own condition", id: "x-c", start: base - 86_400 * 400, status: "active",
                              codes: ["SNOMED-CT": ["38341003"]]))
        entries.append(.entry(.medication, "Own medication", id: "x-m", at: base + 86_400, codes: ["RxNorm": ["197361"]]))
        return .record("other-source", name: "Long Record", entries: entries)
    }

    /// Every page kind at ends before, within and after the record: the pages' bytes joined, with a
    /// separator, and how many pages had entries.
    static func pages(_ store: Store, patientID: String) async throws -> (bytes: [UInt8], count: Int) {
        let reader = TimelineReader(calendar: ServedApp.utc, cacheBytes: 0)
        var joined: [UInt8] = []
        var count = 0
        let base = TimelineStreamTests.base
        for end in [base - 86_400, base + 3_600 * 5, base + 86_400 * 3, base + 86_400 * 20, base + 86_400 * 401, 2_000_000_000] {
            for page in TimelinePage.allCases {
                let answer = try await reader.page(.init(page: page, end: end, patientID: patientID), store: store)
                guard case .whole(let buffer) = answer else {
                    Issue.record("page \(page) at \(end) was streamed")
                    continue
                }
                joined += withoutRandomIDs(Array(buffer.readableBytesView))
                joined.append(0x0a)
                count += 1
            }
        }
        return (joined, count)
    }

    @Test("one patient's pages: annotations, readings, posts, vital signs")
    func onePatient() async throws {
        let dir = TemporaryDirectory()
        let (store, _) = try TestStore.create(at: dir.file("state"))
        defer { store.close() }
        let patientID = try await TimelineStreamTests.filled(store)
        let (bytes, count) = try await Self.pages(store, patientID: patientID)
        let text = String(decoding: bytes, as: UTF8.self)
        // What the figures cover.
        #expect(count == 36 && text.contains("note on late0") && text.contains("\"self_reported\":[")
                && text.contains("\"timeline_entries\":[{"))
        #expect(bytes.count == 2_008_237 && Self.fingerprint(bytes) == 4_020_993_664_447_884,
                "pages: \(bytes.count) bytes, fingerprint \(Self.fingerprint(bytes))")
    }

    @Test("a linked person's pages: each fact once, both sources named, annotations on either")
    func linkedPerson() async throws {
        let dir = TemporaryDirectory()
        let (store, _) = try TestStore.create(at: dir.file("state"))
        defer { store.close() }
        let patientID = try await TimelineStreamTests.filled(store)
        _ = try await store.addSource(Store.NewSource(name: "hospital", url: "http://127.0.0.1:1/", settings: SourceSettings(clientID: "c"),
                                                      secrets: SourceSecrets(clientSecret: "s")))
        let other = try store.importRecordSync(Self.otherSource(), sourceName: "hospital").patientID
        _ = try await store.setAnnotation(Annotation(entryID: "x-m", note: "note on x-m"), patientID: other, now: 1_700_000_000)
        guard case .success = try await store.linkPatient(other, into: patientID, now: 1_700_000_000) else {
            Issue.record("not linked")
            return
        }
        let (bytes, count) = try await Self.pages(store, patientID: patientID)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(count == 36 && text.contains("\"sources\":[\"") && text.contains("\"hospital\""))
        #expect(text.contains("note on x-m") && text.contains("note on late0"))
        #expect(bytes.count == 2_025_869 && Self.fingerprint(bytes) == 648_142_549_777_658_697,
                "pages: \(bytes.count) bytes, fingerprint \(Self.fingerprint(bytes))")
    }
}
