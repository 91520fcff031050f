// hreaderd-bench: prints the store's and the import's figures.
// Usage: hreaderd-bench [store] [import] [import-writer] [fhir] [fhir-steps] [ccda] [search] [backup] [timeline] [sync] [--json FILE]
//                       [--writer-entries N] [--steps-resources N] [--steps-pretty]   (no section named: all of them)
//
// store:  bulk-insert rate (entries/s) and timeline window query latency at 1,000, 10,000 and 100,000
//         entries, on the SQLCipher-encrypted store and on a plain SQLite database of the same schema.
// import: a generated 100,000-entry record, parsing and storing timed apart.
// import-writer: the store's writer alone, 200,000 entries (--writer-entries) sparse and dense, made ready first: import-file's ceiling.
// timeline: each page of a generated 100,000-entry patient, store read and JSON encoding timed apart.
// fhir:   FHIR R4 import: the largest shared sample and a generated 100,000-resource bundle, read and write timed apart.
// fhir-steps: the 100,000-resource bundle's (--steps-resources) reading, assembly, mapping and preparing on one thread, without the writer;
//             --steps-pretty: the bundle pretty-printed, as Synthea and many exports write theirs.
// ccda:   C-CDA import: the largest shared document and a 1 MB document made from it, documents/s and MB/s.
// search: one-word and prefix queries on a generated 100,000-entry patient (p50, p99), import and size with and without the index.
// backup: hreaderd backup of a store with a generated 100,000-entry patient: time, size, verify and restore.
// sync:   the 500-patient sample through the RHEx sandbox on loopback into a fresh store, end to end; then every
//         patient of ../shared/fhir-samples through the FHIR (SMART) sandbox, one source each.
import Foundation
import HealthRecord
import Store

let arguments = Array(CommandLine.arguments.dropFirst())
var jsonPath: String?
var writerEntries = ImportWriterBenchmark.defaultEntries
var stepsResources = FHIRStepsBenchmark.defaultResources
var stepsPretty = false
var sections: [String] = []
var index = 0
while index < arguments.count {
    if arguments[index] == "--json", index + 1 < arguments.count {
        jsonPath = arguments[index + 1]
        index += 2
    } else if arguments[index] == "--writer-entries", index + 1 < arguments.count, let n = Int(arguments[index + 1]), n > 0 {
        writerEntries = n
        index += 2
    } else if arguments[index] == "--steps-resources", index + 1 < arguments.count, let n = Int(arguments[index + 1]), n > 1 {
        stepsResources = n
        index += 2
    } else if arguments[index] == "--steps-pretty" {
        stepsPretty = true
        index += 1
    } else {
        sections.append(arguments[index])
        index += 1
    }
}
if sections.isEmpty { sections = ["store", "import", "import-writer", "fhir", "fhir-steps", "ccda", "search", "backup", "timeline", "sync"] }

var json: [String] = []
do {
    if sections.contains("store") {
        let results = try StoreBenchmark.run()
        StoreBenchmark.printTable(results)
        json.append(#""store":"# + StoreBenchmark.json(results))
    }
    if sections.contains("import") {
        let result = try ImportBenchmark.run()
        ImportBenchmark.printTable(result)
        json.append(#""import":"# + ImportBenchmark.json(result))
    }
    if sections.contains("import-writer") {
        let results = try ImportWriterBenchmark.run(entries: writerEntries)
        ImportWriterBenchmark.printTable(results)
        json.append(#""import_writer":"# + ImportWriterBenchmark.json(results))
    }
    if sections.contains("fhir") {
        let results = try await FHIRImportBenchmark.run()
        FHIRImportBenchmark.printTable(results)
        json.append(#""fhir":"# + FHIRImportBenchmark.json(results))
    }
    if sections.contains("fhir-steps") {
        try FHIRStepsBenchmark.run(resources: stepsResources, pretty: stepsPretty)
    }
    if sections.contains("ccda") {
        let results = try await CCDAImportBenchmark.run()
        CCDAImportBenchmark.printTable(results)
        json.append(#""ccda":"# + CCDAImportBenchmark.json(results))
    }
    if sections.contains("search") {
        let result = try SearchBenchmark.run()
        SearchBenchmark.printTable(result)
        json.append(#""search":"# + SearchBenchmark.json(result))
    }
    if sections.contains("backup") {
        let result = try BackupBenchmark.run()
        BackupBenchmark.printTable(result)
        json.append(#""backup":"# + BackupBenchmark.json(result))
    }
    if sections.contains("timeline") {
        let rows = try await TimelineBenchmark.run()
        TimelineBenchmark.printTable(rows)
        json.append(#""timeline":"# + TimelineBenchmark.json(rows))
    }
    if sections.contains("sync") {
        let result = try await SyncBenchmark.run()
        SyncBenchmark.printTable(result)
        json.append(#""sync":"# + SyncBenchmark.json(result))
        let fhir = try await FHIRSyncBenchmark.run()
        FHIRSyncBenchmark.printTable(fhir)
        json.append(#""fhir_sync":"# + FHIRSyncBenchmark.json(fhir))
    }
} catch {
    FileHandle.standardError.write(Data("hreaderd-bench: \(error)\n".utf8))
    exit(1)
}
if let jsonPath {
    try ("{" + json.joined(separator: ",\n") + "}\n").write(toFile: jsonPath, atomically: true, encoding: .utf8)
    print("wrote \(jsonPath)")
}
