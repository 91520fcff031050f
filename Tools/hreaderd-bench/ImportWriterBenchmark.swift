import Foundation
import Records
import SyntheticRecords
import HealthRecord
import Store

/// The store's writer alone: a generated record parsed, put in date order and made ready to write
/// (`Store.prepare`: each entry's timeline JSON, codes and content hash) before the clock starts, then
/// written as `import-file` writes a large record (one transaction, in place, a batch at a time, the search
/// index kept). `import-file` reads and prepares on another thread while its writer writes, so this is the
/// import's ceiling on the machine: no reading, however fast, takes an import past it.
enum ImportWriterBenchmark {
    struct Result {
        var mix: SyntheticRecords.Mix
        var entries: Int
        var seconds: Double
        /// The store's file after the import, a byte an entry (what the writer encrypted and wrote).
        var storeBytesPerEntry: Int
        var entriesPerSecond: Double { Double(entries) / seconds }
    }

    /// 200,000 entries: the store's trees are deep enough to cost what the million's do, and the prepared
    /// entries (about 1 KB each) fit beside the store in a few hundred MB.
    static let defaultEntries = 200_000

    static func run(entries: Int = defaultEntries) throws -> [Result] {
        try [SyntheticRecords.Mix.sparse, .dense].map { try run(mix: $0, entries: entries) }
    }

    static func run(mix: SyntheticRecords.Mix, entries: Int) throws -> Result {
        let bench = try BenchStore(name: "writer-bench-\(mix.rawValue)", inPlace: true)
        defer { bench.remove() }
        let store = bench.store

        let (head, batches) = try prepared(mix: mix, entries: entries, store: store)
        let start = DispatchTime.now()
        let summary = try store.importRecordSync(head, entries: { write in
            for batch in batches { try write(batch) }
        })
        let seconds = StoreBenchmark.seconds(since: start)
        precondition(summary.entriesAdded == entries, "the benchmark stored \(summary.entriesAdded) of \(entries) entries")
        store.close()
        let size = (try? FileManager.default.attributesOfItem(atPath: bench.state.databasePath)[.size] as? Int) ?? 0
        return Result(mix: mix, entries: entries, seconds: seconds, storeBytesPerEntry: size / entries)
    }

    /// The record without its entries, and its entries made ready in batches of the streamed reader's size,
    /// in the order an import writes a record held whole (by date, as `import-file` hands them on).
    private static func prepared(mix: SyntheticRecords.Mix, entries: Int, store: Store) throws -> (PatientRecord, [Store.PreparedEntries]) {
        let generator = SyntheticRecords(seed: 7)
        let bytes = generator.record(for: generator.family()[0], entries: entries, shape: .gen1, mix: mix)
        let parser = RecordParser(limits: ParseLimits(maxDocumentBytes: max(ParseLimits.defaultMaxDocumentBytes, bytes.count)))
        var head = try parser.parse(bytes)
        let byDate = Store.inWriteOrder(head.entries)
        head.entries = []
        let batches = try stride(from: 0, to: byDate.count, by: StreamedRecordFile.batchEntries).map { from in
            try store.prepare(Array(byDate[from..<min(from + StreamedRecordFile.batchEntries, byDate.count)]))
        }
        return (head, batches)
    }

    static func printTable(_ results: [Result]) {
        print("")
        print("The store's writer alone: entries parsed and made ready before the clock starts, then written as import-file writes them")
        print("(one transaction, in place, the search index kept): the ceiling of import-file on this machine")
        print(String(repeating: "-", count: 64))
        print(StoreBenchmark.pad("mix", 10) + StoreBenchmark.pad("entries", 10) + StoreBenchmark.pad("seconds", 10)
              + StoreBenchmark.pad("entries/s", 12) + "store bytes an entry")
        for r in results {
            print(StoreBenchmark.pad(r.mix.rawValue, 10) + StoreBenchmark.pad(String(r.entries), 10)
                  + StoreBenchmark.pad(String(format: "%.3f", r.seconds), 10)
                  + StoreBenchmark.pad(String(format: "%.0f", r.entriesPerSecond), 12) + String(r.storeBytesPerEntry))
        }
    }

    static func json(_ results: [Result]) -> String {
        "{" + results.map { r in
            #""\#(r.mix.rawValue)":{"entries":\#(r.entries),"seconds":\#(r.seconds),"entries_per_second":\#(Int(r.entriesPerSecond)),"store_bytes_per_entry":\#(r.storeBytesPerEntry)}"#
        }.joined(separator: ",") + "}"
    }
}
