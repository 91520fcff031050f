import Foundation
import Records
import HealthRecord
import Store
import SyntheticRecords
import TimelineAPI

/// Search on a generated 100,000-entry patient: the time the store takes to answer one-word and prefix
/// queries (the server's part of `/search.json`, first page of 20), the import with the index kept against
/// the same import without it, and the index's share of the store.
enum SearchBenchmark {
    struct Row {
        var kind: String
        var queries: Int
        var p50: Double
        var p99: Double
        var hits: Int
    }

    struct Result {
        var entries: Int
        var importWithIndex: Double
        var importWithoutIndex: Double
        var bytesWithIndex: Int
        var bytesWithoutIndex: Int
        var rows: [Row]
    }

    static let rounds = 25
    /// Imports of the record with the index and without it (the median of each is reported).
    static let importRuns = 5

    static func run(entries: Int = 100_000) throws -> Result {
        let generator = SyntheticRecords(seed: 2012)
        let bytes = generator.record(for: generator.family()[0], entries: entries, shape: .gen1)
        let record = try RecordParser(limits: ParseLimits(maxDocumentBytes: max(ParseLimits.defaultMaxDocumentBytes, bytes.count))).parse(bytes)

        // One import of each differs by up to a quarter from the next on this machine: the median of
        // `importRuns` of each, taken in turn, so that a slow spell of the machine weighs on both.
        var withoutRuns: [Double] = [], withRuns: [Double] = []
        var withoutBytes = 0, withBytes = 0
        var rows: [Row] = []
        for run in 0..<importRuns {
            let without = try importInto(record, index: false) { _ in }
            withoutRuns.append(without.0)
            withoutBytes = without.1
            let with = try importInto(record, index: true) { store in
                if run == importRuns - 1 { rows = try queries(record, store: store) }
            }
            withRuns.append(with.0)
            withBytes = with.1
        }
        let without = withoutRuns.sorted()[importRuns / 2], with = withRuns.sorted()[importRuns / 2]
        return Result(entries: record.entries.count, importWithIndex: with, importWithoutIndex: without,
                      bytesWithIndex: withBytes, bytesWithoutIndex: withoutBytes, rows: rows)
    }

    /// The words people would type: each distinct word of the record's descriptions (letters only, four or
    /// more), and their first four letters as prefixes; each query `rounds` times.
    static func queries(_ record: PatientRecord, store: Store) throws -> [Row] {
        let patient = Patient.id(sourceName: "files", recordID: record.recordID)
        var words = Set<String>()
        for entry in record.entries {
            for word in (entry.description ?? "").split(whereSeparator: { !$0.isLetter }) where word.count >= 4 { words.insert(word.lowercased()) }
        }
        let chosen = Array(words.sorted().prefix(40))
        let prefixes = Array(Set(chosen.map { String($0.prefix(4)) + "*" })).sorted()
        var rows: [Row] = []
        for (kind, queries) in [("one word", chosen), ("prefix", prefixes)] {
            var latencies: [Double] = []
            var hits = 0
            for _ in 0..<rounds {
                for query in queries {
                    let terms = try SearchTerms.parse(query)
                    let start = DispatchTime.now()
                    let page = try store.searchSync(terms, filter: SearchFilter(patientIDs: [patient]), limit: 20)
                    latencies.append(StoreBenchmark.seconds(since: start))
                    hits += page.total
                }
            }
            latencies.sort()
            rows.append(Row(kind: kind, queries: queries.count, p50: StoreBenchmark.percentile(latencies, 0.5),
                            p99: StoreBenchmark.percentile(latencies, 0.99), hits: hits / max(1, rounds * queries.count)))
        }
        return rows
    }

    /// Imports `record` into a fresh encrypted store on a connection of its own (`Database.importRecord`,
    /// the store's import, with the search index kept or not), then reopens it as a store and runs `body` on
    /// it; the import's seconds and the database's size.
    static func importInto(_ record: PatientRecord, index: Bool, _ body: (Store) throws -> Void) throws -> (Double, Int) {
        let directory = NSTemporaryDirectory() + "hreaderd-search-bench-\(getpid())-\(index)"
        try? FileManager.default.removeItem(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fast = ScryptParameters(logN: 10, r: 8, p: 1)
        let state = StateDirectory(path: directory)
        let (created, _) = try Store.create(at: state, password: "bench", passwordParameters: fast, recoveryParameters: fast, options: .timeline)
        created.close()
        let key = try state.keyVault.unlock(password: "bench")
        var seconds = 0.0
        do {
            let db = try Database(path: state.databasePath, key: key)
            let start = DispatchTime.now()
            let summary = try db.transaction { db in
                try db.importRecord(record, now: 0, encoder: TimelineEntryJSON(), searchIndex: index)
            }
            seconds = StoreBenchmark.seconds(since: start)
            precondition(summary.entriesAdded == record.entries.count, "the benchmark stored fewer entries than it parsed")
            // The last connection closed checkpoints the WAL into the database file: its size is the store's.
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: state.databasePath)[.size] as? Int) ?? 0
        let store = try Store.open(at: state, key: key, options: .timeline)
        defer { store.close() }
        try body(store)
        return (seconds, size)
    }

    static func printTable(_ r: Result) {
        print("")
        print("Search on a generated \(r.entries)-entry patient (the store's time for the first page of 20; \(rounds) rounds)")
        print(String(repeating: "-", count: 80))
        print(StoreBenchmark.pad("queries", 20) + StoreBenchmark.pad("count", 8) + StoreBenchmark.pad("p50 ms", 10)
              + StoreBenchmark.pad("p99 ms", 10) + "average hits")
        for row in r.rows {
            print(StoreBenchmark.pad(row.kind, 20) + StoreBenchmark.pad("\(row.queries)", 8) + StoreBenchmark.pad(String(format: "%.2f", row.p50 * 1000), 10)
                  + StoreBenchmark.pad(String(format: "%.2f", row.p99 * 1000), 10) + "\(row.hits)")
        }
        print("import with the index kept (median of \(importRuns)): \(String(format: "%.2f", r.importWithIndex)) s; without: \(String(format: "%.2f", r.importWithoutIndex)) s"
              + " (\(String(format: "%+.0f", (r.importWithIndex / r.importWithoutIndex - 1) * 100))%)")
        print("store size with the index: \(r.bytesWithIndex / 1_000_000) MB; without: \(r.bytesWithoutIndex / 1_000_000) MB"
              + " (\(String(format: "%+.0f", (Double(r.bytesWithIndex) / Double(max(1, r.bytesWithoutIndex)) - 1) * 100))%)")
        print("targets: p50 < 10 ms and p99 < 50 ms; import at most 20% slower; the index at most 30% of the store's size")
    }

    static func json(_ r: Result) -> String {
        let rows = r.rows.map { #"{"kind":"\#($0.kind)","queries":\#($0.queries),"p50_ms":\#($0.p50 * 1000),"p99_ms":\#($0.p99 * 1000),"average_hits":\#($0.hits)}"# }
        return #"{"entries":\#(r.entries),"import_with_index_seconds":\#(r.importWithIndex),"import_without_index_seconds":\#(r.importWithoutIndex),"bytes_with_index":\#(r.bytesWithIndex),"bytes_without_index":\#(r.bytesWithoutIndex),"queries":[\#(rows.joined(separator: ","))]}"#
    }
}
