import HealthRecord
import Records
import SyntheticRecords
import TestSupport
import Testing

/// The parse benchmark runs and reports; speed is judged from its figures in a release build, never
/// asserted in a test (debug builds and loaded CI machines would make that flaky).
@Suite("parse benchmark")
struct ParseBenchmarkTests {
    @Test("the benchmark parses the generated record and reports its figures", arguments: SyntheticRecords.Shape.allCases)
    func runs(shape: SyntheticRecords.Shape) throws {
        let figures = try ParseBenchmark.run(entries: 5_000, shape: shape, runs: 2)
        print(figures)
        #expect(figures.entries == 5_000)
        #expect(figures.runs == 2)
        #expect(figures.bytes > 5_000 * 50)
        #expect(figures.bestSeconds > 0 && figures.bestSeconds <= figures.medianSeconds)
        #expect(figures.entriesPerSecond > 0)
    }
}
