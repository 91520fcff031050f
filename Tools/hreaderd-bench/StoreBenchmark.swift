import Foundation
import HealthRecord
import Store
import TimelineAPI

/// Bulk insert and window query, encrypted against plain, at three record sizes.
enum StoreBenchmark {
    struct Result {
        var encrypted: Bool
        var entries: Int
        var insertSeconds: Double
        var monthWindowEntries: Int
        var monthP50: Double
        var monthP99: Double
        var allP50: Double
        var entriesPerSecond: Double { Double(entries) / insertSeconds }
    }

    static let sizes = [1_000, 10_000, 100_000]
    /// The window month always holds the same number of entries, whatever the record's size: the query's
    /// cost should follow this number, not the record.
    static let entriesInWindow = 200
    static let windowEnd: Int64 = 1_700_000_000
    static let month: Int64 = 30 * 86_400

    static func run() throws -> [Result] {
        var results: [Result] = []
        for size in sizes {
            for encrypted in [true, false] {
                results.append(try measure(size: size, encrypted: encrypted))
            }
        }
        return results
    }

    static func record(size: Int) -> PatientRecord {
        var generator = SplitMix(seed: UInt64(size))
        let types: [EntryType] = [.condition, .result, .vitalSign, .medication, .encounter, .procedure]
        let entries = (0..<size).map { i -> Entry in
            // The last `entriesInWindow` entries fall in the window month; the rest spread over 30 years before.
            let time = i >= size - entriesInWindow
                ? windowEnd - Int64(generator.next() % UInt64(month))
                : windowEnd - month - 1 - Int64(generator.next() % UInt64(30 * 365 * 86_400))
            let type = types[i % types.count]
            let value = Double(generator.next() % 200)
            return Entry(id: "e_\(i)", type: type, description: "Benchmark \(type.rawValue) \(i % 50)",
                         time: time, status: "completed", value: type == .result || type == .vitalSign ? value : nil,
                         units: "mg/dL", codes: ["LOINC": ["\(1000 + i % 500)-\(i % 10)"]], sourceID: "src\(i)",
                         rawJSON: #"{"_id":"src\#(i)","description":"Benchmark","time":\#(time),"value":{"scalar":"\#(value)","units":"mg/dL"}}"#)
        }
        return PatientRecord(recordID: "bench-\(size)", name: "Bench Patient", gender: "F", birthdate: 0, entries: entries)
    }

    static func measure(size: Int, encrypted: Bool) throws -> Result {
        let directory = NSTemporaryDirectory() + "hreaderd-bench-\(getpid())-\(size)-\(encrypted)"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let key = encrypted ? try StoreKey.random() : nil
        let db = try Database(path: directory + "/bench.db", key: key, mode: .readWriteCreate)
        try db.migrateToCurrentSchema()
        let record = record(size: size)

        let start = DispatchTime.now()
        let summary = try db.transaction { db in try db.importRecord(record, now: windowEnd, encoder: TimelineEntryJSON()) }
        let insertSeconds = seconds(since: start)

        var inWindow = 0
        let monthTimes = try timings(runs: 300) {
            inWindow = try db.timelineEntryCount(patientID: summary.patientID, from: windowEnd - month, to: windowEnd)
        }
        let allTimes = try timings(runs: size >= 100_000 ? 10 : 50) {
            _ = try db.timelineEntryCount(patientID: summary.patientID, from: Int64.min, to: Int64.max)
        }
        return Result(encrypted: encrypted, entries: size, insertSeconds: insertSeconds, monthWindowEntries: inWindow,
                      monthP50: percentile(monthTimes, 0.5), monthP99: percentile(monthTimes, 0.99),
                      allP50: percentile(allTimes, 0.5))
    }

    static func timings(runs: Int, _ body: () throws -> Void) throws -> [Double] {
        try body() // warm the page cache
        var times: [Double] = []
        for _ in 0..<runs {
            let start = DispatchTime.now()
            try body()
            times.append(seconds(since: start))
        }
        return times.sorted()
    }

    static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    static func printTable(_ results: [Result]) {
        print("Store benchmark (one transaction per import; window = one month holding \(entriesInWindow) entries)")
        print(String(repeating: "-", count: 104))
        print(pad("store", 10) + pad("entries", 10) + pad("insert entries/s", 18) + pad("month: rows", 13)
              + pad("month p50 ms", 14) + pad("month p99 ms", 14) + pad("all p50 ms", 12))
        for r in results {
            print(pad(r.encrypted ? "sqlcipher" : "plain", 10) + pad("\(r.entries)", 10)
                  + pad(String(format: "%.0f", r.entriesPerSecond), 18) + pad("\(r.monthWindowEntries)", 13)
                  + pad(String(format: "%.3f", r.monthP50 * 1000), 14) + pad(String(format: "%.3f", r.monthP99 * 1000), 14)
                  + pad(String(format: "%.1f", r.allP50 * 1000), 12))
        }
    }

    static func json(_ results: [Result]) -> String {
        let rows = results.map { r in
            #"{"store":"\#(r.encrypted ? "sqlcipher" : "plain")","entries":\#(r.entries),"insert_entries_per_second":\#(Int(r.entriesPerSecond)),"month_window_entries":\#(r.monthWindowEntries),"month_p50_ms":\#(r.monthP50 * 1000),"month_p99_ms":\#(r.monthP99 * 1000),"all_p50_ms":\#(r.allP50 * 1000)}"#
        }
        return "[\n" + rows.joined(separator: ",\n") + "\n]"
    }

    static func pad(_ s: String, _ width: Int) -> String { s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count) }
}

/// A tiny deterministic generator so every run measures the same data.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
