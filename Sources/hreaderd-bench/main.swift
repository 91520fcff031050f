// hreaderd-bench: prints the store's figures. Usage: hreaderd-bench [store] [--json FILE]
//
// store: bulk-insert rate (entries/s) and timeline window query latency at 1,000, 10,000 and 100,000
// entries, on the SQLCipher-encrypted store and on a plain SQLite database of the same schema, in one run.
import Foundation
import Store

let arguments = Array(CommandLine.arguments.dropFirst())
var jsonPath: String?
if let i = arguments.firstIndex(of: "--json"), i + 1 < arguments.count { jsonPath = arguments[i + 1] }

let results = try StoreBenchmark.run()
StoreBenchmark.printTable(results)
if let jsonPath {
    try StoreBenchmark.json(results).write(toFile: jsonPath, atomically: true, encoding: .utf8)
    print("wrote \(jsonPath)")
}
