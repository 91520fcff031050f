// Test support for the crash test: imports batch after batch of large synthetic records into a store,
// printing "begin N" before each transaction and "committed N" after it, until it is killed; in place
// (`streamed`), "writing N" once its first batch is written and its changed pages written out into the file (the
// rollback journal exists), "written N" once its last batch is written, before the commit.
// Usage: hreaderd-crashwriter STATE_DIR PASSWORD ENTRIES_PER_BATCH [streamed [--file-size-limit BYTES]]
// `streamed`: each record's entries given a batch at a time, as a large record file is imported, with the store
// opened as `import-file` opens it (written in place, through a rollback journal, when it is this process's alone).
// `--file-size-limit`: once the store is open, no file of the process may grow past BYTES (RLIMIT_FSIZE, the
// signal ignored): the write that would fails, as on a full disk. The error ends the process.
import Foundation
import HealthRecord
import Store
import TimelineAPI

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let arguments = CommandLine.arguments
let limit = arguments.count == 7 && arguments[5] == "--file-size-limit" ? rlim_t(arguments[6]) : nil
guard [4, 5].contains(arguments.count) || limit != nil, let perBatch = Int(arguments[3]), perBatch > 0,
      arguments.count == 4 || arguments[4] == "streamed" else {
    FileHandle.standardError.write(Data("usage: hreaderd-crashwriter STATE_DIR PASSWORD ENTRIES_PER_BATCH [streamed [--file-size-limit BYTES]]\n".utf8))
    exit(2)
}
let streamed = arguments.count >= 5
var options = Store.Options.timeline
options.largeImportsInPlace = streamed
let store: Store
do {
    store = try Store.open(at: StateDirectory(path: arguments[1]), password: arguments[2], options: options)
} catch {
    FileHandle.standardError.write(Data("hreaderd-crashwriter: \(error)\n".utf8))
    exit(1)
}
do {
    if let limit {
        signal(SIGXFSZ, SIG_IGN)
        var bound = rlimit(rlim_cur: limit, rlim_max: limit)
        guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &bound) == 0 else { throw POSIXError(.EPERM) }
    }
    for batch in 1...1_000 {
        let entries = (0..<perBatch).map { i in
            Entry(id: "e_\(batch)_\(i)", type: .result, description: "Marker batch \(batch) entry \(i)",
                  time: Int64(1_000_000 + i), value: Double(i), units: "mg/dL",
                  codes: ["LOINC": ["2093-3"]], rawJSON: #"{"batch":\#(batch),"i":\#(i),"pad":"\#(String(repeating: "x", count: 100))"}"#)
        }
        let record = PatientRecord(recordID: "crash-\(batch)", name: "Crash \(batch)", entries: entries)
        say("begin \(batch)")
        if streamed {
            var head = record
            head.entries = []
            _ = try store.importRecordSync(head, entries: { write in
                for start in stride(from: 0, to: entries.count, by: 2_000) {
                    try write(try store.prepare(Array(entries[start..<min(start + 2_000, entries.count)])))
                    // As an import does while it waits for its reader: changed pages written into the file, behind
                    // the rollback journal, before the commit.
                    try write.writeOutChangedPages()
                    if start == 0 { say("writing \(batch)") }  // pages changed and written: the rollback journal exists
                }
                say("written \(batch)")  // the index and the commit follow
            })
        } else {
            _ = try store.importRecordSync(record)
        }
        say("committed \(batch)")
    }
} catch {
    FileHandle.standardError.write(Data("hreaderd-crashwriter: \(error)\n".utf8))
    exit(1)
}
