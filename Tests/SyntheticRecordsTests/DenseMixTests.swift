import HealthRecord
import Records
import SyntheticRecords
import Testing

/// The dense mix (`generate-records --mix dense`, issue 41): a million entries over 35 years, 40 % vital
/// signs and 25 % results; and the sparse mix, every record generated before it, byte for byte as it was.
@Suite("synthetic records: the dense mix")
struct DenseMixTests {
    @Test("the sparse mix is the default and its bytes are pinned: what the generator wrote before the dense mix", arguments: [
        (SyntheticRecords.Shape.gen1, 429_417, 0xd696_ef4c_b1cf_8c3e as UInt64),
        (.gen2, 344_462, 0x7df5_02bb_bf37_1e82),
    ])
    func sparseUnchanged(shape: SyntheticRecords.Shape, size: Int, digest: UInt64) {
        let generator = SyntheticRecords(seed: 7)
        let patient = generator.family()[0]
        let bytes = generator.record(for: patient, entries: 2_000, shape: shape)
        // Read off `generate-records --seed 7 --entries 2000 --members 1` before the mix existed.
        #expect(bytes.count == size)
        #expect(fnv1a(bytes) == digest)
        #expect(generator.record(for: patient, entries: 2_000, shape: shape, mix: .sparse) == bytes)
    }

    @Test("a dense million: 400,000 vital signs, 250,000 results, the rest over the other six sections")
    func denseCounts() {
        let counts = SyntheticRecords.sectionCounts(entries: 1_000_000, mix: .dense)
        #expect(counts.values.reduce(0, +) == 1_000_000)
        #expect(counts[.vitalSign] == 400_000)
        #expect(counts[.result] == 250_000)
        for type in [EntryType.encounter, .medication, .procedure, .condition, .immunization, .allergy] {
            #expect((counts[type] ?? 0) >= 20_000, "\(type)")
        }
        for entries in [0, 1, 7, 999, 12_345] {
            #expect(SyntheticRecords.sectionCounts(entries: entries, mix: .dense).values.reduce(0, +) == entries)
        }
    }

    @Test("a dense record spans the 35 years before its end, every month about as full as the others")
    func denseSpan() throws {
        let generator = SyntheticRecords(seed: 7)
        let patient = generator.family()[0]
        let entries = 42_000
        let record = try RecordParser().parse(generator.record(for: patient, entries: entries, shape: .gen2, mix: .dense))
        #expect(record.entries.count == entries)
        var counts: [EntryType: Int] = [:]
        for entry in record.entries { counts[entry.type, default: 0] += 1 }
        #expect(counts == SyntheticRecords.sectionCounts(entries: entries, mix: .dense))
        let start = SyntheticRecords.referenceEnd - 35 * 31_557_600
        let dates = record.entries.compactMap(\.date)
        #expect(dates.count == entries)
        // A visit falls on its day's office hours: the first may lie a few hours before the span's first moment.
        #expect(dates.allSatisfy { $0 >= start - 86_400 && $0 <= SyntheticRecords.referenceEnd + 86_400 })
        // 420 months of 30.44 days: 100 entries each on average (2,500 a month at a million).
        var months = [Int](repeating: 0, count: 420)
        for date in dates { months[max(0, min(Int((date - start) / 2_629_800), 419))] += 1 }
        #expect(months.allSatisfy { (50...150).contains($0) }, "\(months.min() ?? 0)…\(months.max() ?? 0) a month")
    }

    @Test("dense records are deterministic by seed and differ from sparse ones", arguments: SyntheticRecords.Shape.allCases)
    func denseDeterministic(shape: SyntheticRecords.Shape) {
        let a = SyntheticRecords(seed: 7)
        let patient = a.family()[0]
        let dense = a.record(for: patient, entries: 1_000, shape: shape, mix: .dense)
        #expect(dense == SyntheticRecords(seed: 7).record(for: patient, entries: 1_000, shape: shape, mix: .dense))
        #expect(dense != a.record(for: patient, entries: 1_000, shape: shape))
        let other = SyntheticRecords(seed: 8)
        #expect(other.record(for: other.family()[0], entries: 1_000, shape: shape, mix: .dense) != dense)
    }

    private func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }
}
