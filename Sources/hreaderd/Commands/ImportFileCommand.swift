import ArgumentParser
import Foundation
import Records
import Store

struct ImportFileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-file",
        abstract: "Import RHEx record JSON files (one record, or one record per line) and print what changed.",
        discussion: """
            Each patient is imported in one transaction: a record that fails to parse or to store changes nothing, \
            and the rest of the file still imports. Bad records are reported on stderr with their line number; \
            the exit status is then 1.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("Record files.", valueName: "file"))
    var files: [String]

    /// How often a progress line is printed for a long import.
    static let progressInterval: TimeInterval = 2

    func run() throws {
        let store = try global.openStore()
        defer { store.close() }
        var failures = 0
        for file in files {
            var tally = ImportTally()
            let reader: RecordFileReader
            do { reader = try RecordFileReader(path: file) } catch {
                Console.err("hreaderd: \(error)")
                failures += 1
                continue
            }
            var lastProgress = Date()
            do {
                while let item = try reader.next() {
                    switch item.result {
                    case .success(let record):
                        do {
                            tally.add(try store.importRecordSync(record))
                        } catch {
                            tally.bad += 1
                            Console.err("\(file):\(item.line): cannot store the record: \(error)")
                        }
                    case .failure(let error):
                        tally.bad += 1
                        Console.err("\(file):\(item.line): \(error)")
                    }
                    if Date().timeIntervalSince(lastProgress) >= Self.progressInterval {
                        lastProgress = Date()
                        Console.err("\(file): \(tally.patientsSeen) records so far, \(tally.entriesSeen) entries…")
                    }
                }
            } catch {
                Console.err("hreaderd: \(error)")
                failures += 1
            }
            Console.out("\(file): \(tally.summary)")
            failures += tally.bad
        }
        if failures > 0 {
            throw CLIError("\(failures) record\(failures == 1 ? "" : "s") or file\(failures == 1 ? "" : "s") could not be imported (see above); the rest was imported")
        }
    }
}

/// Counts of what an import changed, for the one-line summary per file.
struct ImportTally {
    var patientsAdded = 0, patientsUpdated = 0, patientsUnchanged = 0
    var entriesAdded = 0, entriesUpdated = 0, entriesUnchanged = 0, entriesRemoved = 0
    var bad = 0

    var patientsSeen: Int { patientsAdded + patientsUpdated + patientsUnchanged }
    var entriesSeen: Int { entriesAdded + entriesUpdated + entriesUnchanged }

    mutating func add(_ summary: ImportSummary) {
        switch summary.patient {
        case .added: patientsAdded += 1
        case .updated: patientsUpdated += 1
        case .unchanged: patientsUnchanged += 1
        }
        entriesAdded += summary.entriesAdded
        entriesUpdated += summary.entriesUpdated
        entriesUnchanged += summary.entriesUnchanged
        entriesRemoved += summary.entriesRemoved
    }

    var summary: String {
        "patients \(patientsAdded) added, \(patientsUpdated) updated, \(patientsUnchanged) unchanged; "
            + "entries \(entriesAdded) added, \(entriesUpdated) updated, \(entriesUnchanged) unchanged, \(entriesRemoved) removed"
            + (bad > 0 ? "; \(bad) bad" : "")
    }
}
