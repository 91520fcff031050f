import Foundation
import Records
import SyntheticRecords
import HealthRecord
import Store
import TimelineAPI

/// The import path of a generated 100,000-entry record: parsing alone, storing alone (into a fresh
/// encrypted store, one transaction, as `import-file` writes it), and the two end to end.
enum ImportBenchmark {
    struct Result {
        var entries: Int
        var bytes: Int
        var parseSeconds: Double
        var storeSeconds: Double
        var entriesPerSecond: (parse: Double, store: Double, total: Double) {
            (Double(entries) / parseSeconds, Double(entries) / storeSeconds, Double(entries) / (parseSeconds + storeSeconds))
        }
    }

    static func run(entries: Int = 100_000) throws -> Result {
        let generator = SyntheticRecords(seed: 2012)
        let bytes = generator.record(for: generator.family()[0], entries: entries, shape: .gen1)
        let parser = RecordParser(limits: ParseLimits(maxDocumentBytes: max(ParseLimits.defaultMaxDocumentBytes, bytes.count)))
        _ = try parser.parse(bytes) // warm up
        let parseStart = DispatchTime.now()
        let record = try parser.parse(bytes)
        let parseSeconds = StoreBenchmark.seconds(since: parseStart)

        // Opened as `import-file` opens it: a record this large is written in place.
        let bench = try BenchStore(name: "import-bench", inPlace: true)
        defer { bench.remove() }
        let store = bench.store
        let storeStart = DispatchTime.now()
        let summary = try store.importRecordSync(record)
        let storeSeconds = StoreBenchmark.seconds(since: storeStart)
        precondition(summary.entriesAdded == record.entries.count, "the benchmark stored fewer entries than it parsed")
        return Result(entries: record.entries.count, bytes: bytes.count, parseSeconds: parseSeconds, storeSeconds: storeSeconds)
    }

    static func printTable(_ r: Result) {
        let rates = r.entriesPerSecond
        print("")
        print("Import of a generated record (\(r.entries) entries, \(r.bytes / 1_000_000) MB of Gen 1 JSON) into the encrypted store, as import-file writes it (in place)")
        print(String(repeating: "-", count: 64))
        print(StoreBenchmark.pad("step", 16) + StoreBenchmark.pad("seconds", 12) + "entries/s")
        print(StoreBenchmark.pad("parse", 16) + StoreBenchmark.pad(String(format: "%.3f", r.parseSeconds), 12) + String(format: "%.0f", rates.parse))
        print(StoreBenchmark.pad("store", 16) + StoreBenchmark.pad(String(format: "%.3f", r.storeSeconds), 12) + String(format: "%.0f", rates.store))
        print(StoreBenchmark.pad("end to end", 16) + StoreBenchmark.pad(String(format: "%.3f", r.parseSeconds + r.storeSeconds), 12) + String(format: "%.0f", rates.total))
    }

    static func json(_ r: Result) -> String {
        let rates = r.entriesPerSecond
        return #"{"entries":\#(r.entries),"bytes":\#(r.bytes),"parse_seconds":\#(r.parseSeconds),"store_seconds":\#(r.storeSeconds),"parse_entries_per_second":\#(Int(rates.parse)),"store_entries_per_second":\#(Int(rates.store)),"total_entries_per_second":\#(Int(rates.total))}"#
    }
}
