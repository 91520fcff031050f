import Records
import HealthRecord

/// Synthetic RHEx patient records for the demo, tests and benchmarks: a family of realistic people and
/// as many entries as asked (up to millions), in Gen 1 or Gen 2 record shape.
///
/// Deterministic: everything derives from `seed` through our own random source, so the same seed
/// gives the same bytes on every run, machine and Swift release. The clock is never read; records
/// end at `referenceEnd`.
public struct SyntheticRecords: Sendable {
    /// Which record generation's JSON shape to write (docs/import-mapping.md).
    public enum Shape: String, Sendable, CaseIterable {
        /// `value: {scalar, units}` with string scalars, `status` words, `_id` strings on every entry.
        case gen1
        /// `values: [{scalar, units}]` with numbers, `status_code` maps, `{"$oid"}` record id, numeric
        /// MRN, entries without `_id`.
        case gen2
    }

    /// How a record's entries are spread: the sparse mix is every record generated so far (its history
    /// from birth or 1990); the dense mix is a chart of constant monitoring, as a benchmark's worst case
    /// (issue 41): a million entries over 35 years is about 2,500 a month, most of them vital signs
    /// (40 %) and results (25 %).
    public enum Mix: String, Sendable, CaseIterable {
        case sparse
        case dense

        /// Entries per section, in thousandths.
        var sectionShares: [(EntryType, Int)] {
            switch self {
            case .sparse: return SyntheticRecords.sectionShares
            case .dense: return SyntheticRecords.denseSectionShares
            }
        }

        /// How far back the history reaches from its end, at most (never before birth): nil for the
        /// sparse mix, whose history starts at birth or in 1990.
        var span: Int64? {
            switch self {
            case .sparse: return nil
            case .dense: return SyntheticRecords.denseSpan
            }
        }
    }

    /// 2025-01-01T00:00:00Z: the last moment of every synthetic record's history.
    public static let referenceEnd: Int64 = 1_735_689_600

    /// How a record's entries divide among the sections, in thousandths: vital signs and labs dominate
    /// real charts.
    static let sectionShares: [(EntryType, Int)] = [
        (.vitalSign, 400), (.result, 300), (.encounter, 100), (.medication, 60),
        (.procedure, 50), (.condition, 40), (.immunization, 30), (.allergy, 20),
    ]

    /// The dense mix's shares: 400 vital signs and 250 results in a thousand, the other 350 over the
    /// other sections in the sparse mix's proportions.
    static let denseSectionShares: [(EntryType, Int)] = [
        (.vitalSign, 400), (.result, 250), (.encounter, 117), (.medication, 70),
        (.procedure, 58), (.condition, 47), (.immunization, 35), (.allergy, 23),
    ]

    /// The dense mix's history: the 35 years (of 365.25 days) before its end.
    static let denseSpan: Int64 = 35 * 31_557_600

    public let seed: UInt64

    public init(seed: UInt64) {
        self.seed = seed
    }

    /// The family: the primary person first, then spouse, children and a parent (4–6 people).
    public func family() -> [SyntheticPatient] {
        SyntheticFamily.make(seed: seed)
    }

    /// How many entries of each section a record of `entries` entries holds: fixed shares, rounded by
    /// largest remainder so that they add up to exactly `entries`.
    public static func sectionCounts(entries: Int, mix: Mix = .sparse) -> [EntryType: Int] {
        let total = max(entries, 0)
        var counts: [EntryType: Int] = [:]
        var remainders: [(EntryType, Int)] = []
        var assigned = 0
        for (type, share) in mix.sectionShares {
            let exact = total * share
            counts[type] = exact / 1000
            assigned += exact / 1000
            remainders.append((type, exact % 1000))
        }
        // Stable order for ties: the table's order.
        let byRemainder = remainders.enumerated().sorted {
            $0.element.1 != $1.element.1 ? $0.element.1 > $1.element.1 : $0.offset < $1.offset
        }
        for (_, element) in byRemainder.prefix(total - assigned) {
            counts[element.0, default: 0] += 1
        }
        return counts
    }

    /// The record of `patient` with `entries` entries, as JSON bytes.
    public func record(for patient: SyntheticPatient, entries: Int, shape: Shape, mix: Mix = .sparse, pretty: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        writeRecord(for: patient, entries: entries, shape: shape, mix: mix, pretty: pretty) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// Streams the record of `patient` to `sink` in chunks of about `chunkBytes`, for records too large
    /// to hold twice (a million entries is about 200 MB).
    public func writeRecord(
        for patient: SyntheticPatient, entries: Int, shape: Shape, mix: Mix = .sparse, pretty: Bool = false,
        end: Int64 = SyntheticRecords.referenceEnd, chunkBytes: Int = 1 << 20, to sink: ([UInt8]) throws -> Void
    ) rethrows {
        let factory = SyntheticEntryFactory(
            seed: seed, patient: patient, counts: SyntheticRecords.sectionCounts(entries: entries, mix: mix),
            end: end, span: mix.span
        )
        let recordWriter = SyntheticRecordWriter(shape: shape, patient: patient, factory: factory)
        var writer = SyntheticJSONWriter(pretty: pretty, capacity: min(chunkBytes, 300 * max(entries, 1)) + 4096)
        try recordWriter.write(into: &writer) { writer in
            if writer.bytes.count >= chunkBytes { try sink(writer.take()) }
        }
        try sink(writer.take())
    }
}
