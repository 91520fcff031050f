import Records
import HealthRecord

/// How fast `RecordParser` turns record bytes into entries, on its own: no file, no network, no store.
/// The import target is 50,000 entries/s into the encrypted store end to end, so parsing has to be far
/// faster than that to leave the store most of the time.
public enum ParseBenchmark {
    public struct Figures: Sendable, CustomStringConvertible {
        public let shape: SyntheticRecords.Shape
        public let entries: Int
        public let bytes: Int
        public let runs: Int
        public let bestSeconds: Double
        public let medianSeconds: Double

        /// Entries per second in the median run.
        public var entriesPerSecond: Double { Double(entries) / medianSeconds }
        /// Megabytes (10⁶ bytes) of record JSON per second in the median run.
        public var megabytesPerSecond: Double { Double(bytes) / medianSeconds / 1e6 }

        public var description: String {
            let rate = Int(entriesPerSecond.rounded())
            let throughput = SyntheticJSONWriter.decimalText(megabytesPerSecond, decimals: 1)
            let best = SyntheticJSONWriter.decimalText(bestSeconds * 1000, decimals: 1)
            let median = SyntheticJSONWriter.decimalText(medianSeconds * 1000, decimals: 1)
            return "parse \(shape.rawValue): \(entries) entries, \(bytes) bytes; median \(median) ms, best \(best) ms over \(runs) runs; \(rate) entries/s, \(throughput) MB/s"
        }
    }

    /// Generates one record of `entries` entries for the primary person of the family of `seed` and
    /// parses it `runs` times after one warm-up parse. The clock covers parsing only, up to the
    /// finished `PatientRecord` (its release is not timed).
    public static func run(
        entries: Int = 100_000, shape: SyntheticRecords.Shape = .gen1, runs: Int = 5, seed: UInt64 = 2012
    ) throws(RecordParseError) -> Figures {
        let generator = SyntheticRecords(seed: seed)
        let patient = generator.family()[0]
        let bytes = generator.record(for: patient, entries: entries, shape: shape)
        // A benchmark may ask for more than a real record may hold; the limit is not what is measured.
        let parser = RecordParser(limits: ParseLimits(maxDocumentBytes: max(ParseLimits.defaultMaxDocumentBytes, bytes.count)))
        // The count reported is the one parsed, so a generator or parser bug shows in the figures.
        let parsedEntries = try parser.parse(bytes).entries.count
        let clock = ContinuousClock()
        var seconds: [Double] = []
        for _ in 0..<max(runs, 1) {
            let started = clock.now
            let record = try parser.parse(bytes)
            let elapsed = clock.now - started
            withExtendedLifetime(record) {}
            seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
        }
        seconds.sort()
        return Figures(
            shape: shape, entries: parsedEntries, bytes: bytes.count, runs: seconds.count,
            bestSeconds: seconds[0], medianSeconds: seconds[seconds.count / 2]
        )
    }
}
