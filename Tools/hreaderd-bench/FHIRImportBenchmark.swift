import Foundation
import ImportJobs
import Records
import HealthRecord
import Store
import SyntheticRecords
import TimelineAPI

/// FHIR import through the path the command line and uploads take (`FileImporter`): reading and mapping
/// (`plan`), then writing (`apply`: the file kept, each patient one transaction), into a fresh encrypted
/// store. For the largest shared sample (when ../shared is there) and a generated 100,000-resource bundle, the
/// bundle as `import-file` writes it (in place, the store the command's alone) and as the daemon writes an upload (WAL).
enum FHIRImportBenchmark {
    struct Result {
        var name: String
        var resources: Int
        var entries: Int
        var bytes: Int
        var parseSeconds: Double
        var storeSeconds: Double
        /// Through the WAL: the checkpoint the commit queued, run on its own thread after the import (waited
        /// for by closing the store), which SQLite's writer used to do inside the commit.
        var checkpointSeconds: Double?

        var total: Double { parseSeconds + storeSeconds }
        func perSecond(_ count: Int, _ seconds: Double) -> Double { Double(count) / seconds }
    }

    static let largestSample = "synthea_child_daisey_johns.json"

    static func run(resources: Int = 100_000) async throws -> [Result] {
        var results: [Result] = []
        let samples = ProcessInfo.processInfo.environment["HREADERD_FHIR_SAMPLES"] ?? "../shared/fhir-samples"
        if let data = FileManager.default.contents(atPath: samples + "/" + largestSample) {
            // A small file: the median of several runs.
            var runs: [Result] = []
            for _ in 0..<7 { runs.append(try await measure(name: largestSample, bytes: Array(data))) }
            results.append(runs.sorted { $0.total < $1.total }[runs.count / 2])
        } else {
            FileHandle.standardError.write(Data("hreaderd-bench: \(samples)/\(largestSample) is absent; the sample row is left out\n".utf8))
        }
        // One person: the Patient and resources − 1 clinical resources. Written as `import-file` writes it (the
        // store the command's alone: in place) and as the daemon writes an upload (through the WAL).
        // The median of three runs each: on this shared 2-core VM one run of the same build varies by ±15%.
        let bundle = SyntheticRecords(seed: 2012).fhirBundle(entries: resources - 1, members: 1)
        for (mode, inPlace) in [("import-file", true), ("upload", false)] {
            var runs: [Result] = []
            for _ in 0..<3 {
                runs.append(try await measure(name: "generated \(resources)-resource bundle, \(mode)", bytes: bundle, inPlace: inPlace))
            }
            results.append(runs.sorted { $0.total < $1.total }[runs.count / 2])
        }
        return results
    }

    /// `inPlace`: the store opened as `import-file` opens it (`Store.Options.largeImportsInPlace`).
    static func measure(name: String, bytes: [UInt8], mediaType: String = "application/fhir+json", inPlace: Bool = true) async throws -> Result {
        let directory = NSTemporaryDirectory() + "hreaderd-fhir-bench-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fast = ScryptParameters(logN: 10, r: 8, p: 1) // the KDF is not what is measured
        var options = Store.Options.timeline
        options.largeImportsInPlace = inPlace
        let (store, _) = try Store.create(at: StateDirectory(path: directory), password: "bench",
                                          passwordParameters: fast, recoveryParameters: fast, options: options)
        var closed = false
        defer { if !closed { store.close() } }
        let importer = FileImporter(store: store)
        let file = ImportInputFile(name: name, mediaType: mediaType, bytes: bytes)
        let parseStart = DispatchTime.now()
        let plan = importer.plan([file])
        let parseSeconds = StoreBenchmark.seconds(since: parseStart)
        let storeStart = DispatchTime.now()
        let report = await importer.apply(plan)
        let storeSeconds = StoreBenchmark.seconds(since: storeStart)
        guard !report.hasFailures else { throw BenchmarkFailure("\(name) did not import whole: \(report.lines.joined(separator: "; "))") }
        let closeStart = DispatchTime.now()
        store.close()
        closed = true
        return Result(name: name, resources: report.files.reduce(0) { $0 + $1.resources }, entries: report.totals.entriesAdded,
                      bytes: bytes.count, parseSeconds: parseSeconds, storeSeconds: storeSeconds,
                      checkpointSeconds: inPlace ? nil : StoreBenchmark.seconds(since: closeStart))
    }

    struct BenchmarkFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func printTable(_ results: [Result]) {
        print("")
        print("FHIR R4 import into the encrypted store (FileImporter: read and map, then keep the file and write each patient;")
        print("the median run: of 7 for the sample, of 3 for the generated bundle)")
        print(String(repeating: "-", count: 104))
        print(StoreBenchmark.pad("input", 40) + StoreBenchmark.pad("step", 12) + StoreBenchmark.pad("seconds", 10)
              + StoreBenchmark.pad("resources/s", 14) + StoreBenchmark.pad("entries/s", 12) + "MB/s")
        for r in results {
            let label = "\(r.name) (\(r.resources) resources, \(String(format: "%.1f", Double(r.bytes) / 1e6)) MB)"
            print(label)
            for (step, seconds) in [("parse", r.parseSeconds), ("store", r.storeSeconds), ("end to end", r.total)] {
                print(StoreBenchmark.pad("", 40) + StoreBenchmark.pad(step, 12) + StoreBenchmark.pad(String(format: "%.3f", seconds), 10)
                      + StoreBenchmark.pad(String(format: "%.0f", r.perSecond(r.resources, seconds)), 14)
                      + StoreBenchmark.pad(String(format: "%.0f", r.perSecond(r.entries, seconds)), 12)
                      + String(format: "%.1f", Double(r.bytes) / 1e6 / seconds))
            }
            if let after = r.checkpointSeconds {
                print(StoreBenchmark.pad("", 40) + "then the WAL checkpointed on its own thread (the store's close waits for it): "
                      + String(format: "%.3f s", after))
            }
        }
        print("target: at least 50,000 resources/s end to end")
    }

    static func json(_ results: [Result]) -> String {
        "[" + results.map { r in
            #"{"name":"\#(r.name)","resources":\#(r.resources),"entries":\#(r.entries),"bytes":\#(r.bytes),"parse_seconds":\#(r.parseSeconds),"store_seconds":\#(r.storeSeconds),"resources_per_second":\#(Int(Double(r.resources) / r.total)),"megabytes_per_second":\#(Double(r.bytes) / 1e6 / r.total)}"#
        }.joined(separator: ",") + "]"
    }
}

/// The FHIR import's steps on one thread, without the store's writer: the file read (its JSON checked, its
/// resources found), the input assembled (resources indexed and grouped by person), the resources mapped to
/// entries, and the entries made ready to write (codes, digest, timeline JSON). What the reading thread does
/// while the writer writes, timed step by step.
enum FHIRStepsBenchmark {
    /// The bundle's resources (the Patient and the rest), unless `--steps-resources` says otherwise: fewer for a
    /// run under callgrind (`bench/perf/mapping-instructions.py`).
    static let defaultResources = 100_000

    static func run(resources: Int = defaultResources, pretty: Bool = false) throws {
        let compact = SyntheticRecords(seed: 2012).fhirBundle(entries: resources - 1, members: 1)
        // Pretty-printed, each resource's stored JSON is made by compaction rather than copied as it is.
        let bundle = pretty ? prettyPrinted(compact) : compact
        let directory = NSTemporaryDirectory() + "hreaderd-fhir-steps-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fast = ScryptParameters(logN: 10, r: 8, p: 1)
        let (store, _) = try Store.create(at: StateDirectory(path: directory), password: "bench",
                                          passwordParameters: fast, recoveryParameters: fast, options: .timeline)
        defer { store.close() }
        var rows: [[Double]] = []
        for _ in 0..<5 {
            var times: [Double] = []
            var start = DispatchTime.now()
            let file = try FHIRInput.read(bundle, name: "bundle.json")
            times.append(StoreBenchmark.seconds(since: start)); start = DispatchTime.now()
            let read = FHIRReader(mapsWhileWritingFrom: 1).assemble([file])
            times.append(StoreBenchmark.seconds(since: start))
            guard let pending = read.patients.first?.pending else { throw FHIRImportBenchmark.BenchmarkFailure("no pending entries") }
            var tally = FHIRPendingEntries.Tally()
            var mapSeconds = 0.0, prepareSeconds = 0.0
            var batches: [Store.PreparedEntries] = []
            var from = 0
            while from < pending.count {
                let to = min(from + 2_048, pending.count)
                start = DispatchTime.now()
                let entries = try pending.entries(from..<to, tally: &tally)
                mapSeconds += StoreBenchmark.seconds(since: start); start = DispatchTime.now()
                batches.append(try store.prepare(entries))
                prepareSeconds += StoreBenchmark.seconds(since: start)
                from = to
            }
            times += [mapSeconds, prepareSeconds]
            start = DispatchTime.now()
            batches = []
            times.append(StoreBenchmark.seconds(since: start))
            rows.append(times)
        }
        print("")
        print("FHIR import steps on one thread, \(resources) resources\(pretty ? ", pretty-printed" : "") (median of 5): seconds")
        for (column, name) in ["read", "assemble", "map", "prepare", "free"].enumerated() {
            let sorted = rows.map { $0[column] }.sorted()
            print(StoreBenchmark.pad(name, 12) + String(format: "%.3f", sorted[sorted.count / 2]))
        }
    }

    /// `json` (compact, checked) indented two spaces a level, a line a member or element, as a person's export
    /// often is.
    static func prettyPrinted(_ json: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(json.count * 2)
        var depth = 0
        var inString = false, escaped = false
        func newline() {
            out.append(0x0A)
            out.append(contentsOf: repeatElement(0x20, count: 2 * depth))
        }
        for byte in json {
            if inString {
                out.append(byte)
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                out.append(byte)
                depth += 1
                newline()
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                newline()
                out.append(byte)
            case UInt8(ascii: ","):
                out.append(byte)
                newline()
            case UInt8(ascii: ":"):
                out.append(contentsOf: [byte, 0x20])
            default:
                if byte == 0x22 { inString = true }
                out.append(byte)
            }
        }
        return out
    }
}
