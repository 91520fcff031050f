import Foundation
import ImportJobs

/// C-CDA import through the path the command line and uploads take (`FileImporter`), into a fresh
/// encrypted store each run: the largest shared document, and a 1 MB document made from it (its body's
/// sections repeated, every statement id made new in each copy, so each copy's entries are new).
enum CCDAImportBenchmark {
    static let largestSample = "hl7_ccda21_ccd1_full.xml"
    static let runs = 9

    static func run() async throws -> [FHIRImportBenchmark.Result] {
        let samples = ProcessInfo.processInfo.environment["HREADERD_CCDA_SAMPLES"] ?? "../shared/ccda-samples"
        guard let data = FileManager.default.contents(atPath: samples + "/" + largestSample) else {
            FileHandle.standardError.write(Data("hreaderd-bench: \(samples)/\(largestSample) is absent; the C-CDA rows are left out\n".utf8))
            return []
        }
        let document = String(decoding: data, as: UTF8.self)
        var results: [FHIRImportBenchmark.Result] = []
        for (name, bytes) in [(largestSample, Array(data)), ("1 MB document (\(largestSample)'s body repeated)", megabyte(from: document))] {
            var measured: [FHIRImportBenchmark.Result] = []
            for _ in 0..<runs { measured.append(try await FHIRImportBenchmark.measure(name: name, bytes: bytes, mediaType: "application/xml")) }
            results.append(measured.sorted { $0.total < $1.total }[runs / 2])
        }
        return results
    }

    /// The document with its structured body's sections repeated until it holds at least 1,000,000 bytes.
    static func megabyte(from document: String) -> [UInt8] {
        guard let open = document.range(of: "<structuredBody>"), let close = document.range(of: "</structuredBody>") else {
            return Array(document.utf8)
        }
        let body = String(document[open.upperBound..<close.lowerBound])
        var copies: [String] = [body]
        var size = document.utf8.count
        var copy = 1
        while size < 1_000_000 {
            let renamed = body.replacingOccurrences(of: #"<id root="([^"]+)" ?/>"#, with: "<id root=\"$1\" extension=\"copy\(copy)\"/>",
                                                    options: .regularExpression)
            copies.append(renamed)
            size += renamed.utf8.count
            copy += 1
        }
        return Array((document[..<open.upperBound] + copies.joined() + document[close.lowerBound...]).utf8)
    }

    static func printTable(_ results: [FHIRImportBenchmark.Result]) {
        guard !results.isEmpty else { return }
        print("")
        print("C-CDA import into the encrypted store (FileImporter: read with libxml2 and XPath, then keep the file and write; median of \(runs))")
        print(String(repeating: "-", count: 104))
        print(StoreBenchmark.pad("input", 40) + StoreBenchmark.pad("step", 12) + StoreBenchmark.pad("ms", 10)
              + StoreBenchmark.pad("documents/s", 14) + StoreBenchmark.pad("entries/s", 12) + "MB/s")
        for r in results {
            print("\(r.name) (\(r.entries) entries, \(String(format: "%.2f", Double(r.bytes) / 1e6)) MB)")
            for (step, seconds) in [("parse", r.parseSeconds), ("store", r.storeSeconds), ("end to end", r.total)] {
                print(StoreBenchmark.pad("", 40) + StoreBenchmark.pad(step, 12) + StoreBenchmark.pad(String(format: "%.1f", seconds * 1000), 10)
                      + StoreBenchmark.pad(String(format: "%.1f", 1 / seconds), 14)
                      + StoreBenchmark.pad(String(format: "%.0f", r.perSecond(r.entries, seconds)), 12)
                      + String(format: "%.1f", Double(r.bytes) / 1e6 / seconds))
            }
        }
        print("target: a 1 MB document imports in under 100 ms end to end")
    }

    static func json(_ results: [FHIRImportBenchmark.Result]) -> String {
        "[" + results.map { r in
            #"{"name":"\#(r.name)","entries":\#(r.entries),"bytes":\#(r.bytes),"parse_seconds":\#(r.parseSeconds),"store_seconds":\#(r.storeSeconds),"documents_per_second":\#(1 / r.total),"megabytes_per_second":\#(Double(r.bytes) / 1e6 / r.total)}"#
        }.joined(separator: ",") + "]"
    }
}
