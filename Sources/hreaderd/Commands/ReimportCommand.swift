import ArgumentParser
import ImportJobs
import HealthRecord
import Store

/// Reads every kept file again with today's mapping: what a better reader makes of the same files.
struct ReimportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reimport",
        abstract: "Import the files the store keeps again, with this version's readers, and print what changed.",
        discussion: """
            Every file imported with `import-file` or uploaded in the web app is kept in the store. This reads \
            them again, batch by batch (a folder's files together), and adds and updates entries in place; \
            entries keep their ids, so notes on them stay. Nothing is removed. Each kept file's report is \
            replaced by the new one.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(help: "List the kept files instead of importing them.")
    var list = false

    func run() async throws {
        // A large record is written in place when no daemon has the store open (`Store.Options`).
        let store = try global.openStore(largeImportsInPlace: true)
        defer { store.close() }
        let files = try store.importedFilesSync()
        guard !files.isEmpty else {
            Console.err("no kept files: import some with `hreaderd import-file PATH`")
            return
        }
        if list {
            for file in files {
                Console.out("\(file.id)\t\(file.batch)\t\(file.size)\t\(file.sha256Hex.prefix(16))\t\(file.name)")
            }
            return
        }
        let importer = FileImporter(store: store)
        var failures = 0
        var batches: [(Int64, [ImportedFile])] = []
        for file in files {
            if batches.last?.0 == file.batch { batches[batches.count - 1].1.append(file) } else { batches.append((file.batch, [file])) }
        }
        for (_, batch) in batches {
            var inputs: [ImportInputFile] = []
            for file in batch {
                guard let bytes = try store.importedFileContentSync(id: file.id) else { continue }
                inputs.append(ImportInputFile(name: file.name, mediaType: file.mediaType, bytes: bytes, keptID: file.id))
            }
            let report = await importer.importFiles(inputs, options: .merge)
            for line in report.lines { Console.out(line) }
            if report.hasFailures { failures += 1 }
        }
        if failures > 0 {
            throw CLIError("\(failures) kept input\(failures == 1 ? "" : "s") could not be imported again in whole (see above)")
        }
    }
}
