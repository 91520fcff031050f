import ArgumentParser
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ImportJobs
import Records
import HealthRecord
import Store

struct ImportFileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-file",
        abstract: "Import record files and folders (FHIR R4 JSON, C-CDA or C32 XML, RHEx record JSON) and print what changed.",
        discussion: """
            The format and shape are read from each file's content, not its name: a FHIR Bundle of any type, \
            FHIR NDJSON, a single FHIR resource, a C-CDA R1.1/R2.1 or HITSP C32 document (XML), an RHEx record or a \
            file of RHEx records one per line. A C-CDA or C32 document merges into what the store holds. A folder \
            is one input (a Bulk Data export, a folder of one-resource files): references may cross its files. \
            Each patient is imported in one transaction: a patient that fails changes nothing, and the rest \
            still imports. An ordinary FHIR import adds and updates; --replace also removes the entries that the \
            file no longer holds. Every imported file is kept in the store (see `reimport`). The exit status is 1 \
            when anything could not be imported.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("Record files or folders.", valueName: "path"))
    var paths: [String]

    @Option(name: .customLong("patient"), help: ArgumentHelp("Import into this patient (an id from `patients`), whatever the file says.", valueName: "id"))
    var patientID: String?

    @Flag(help: "The files are the whole record: remove entries of their patients that they no longer hold.")
    var replace = false

    /// How often a progress line is printed for a long import.
    static let progressInterval: TimeInterval = 2

    func run() async throws {
        // A large record is written in place when no daemon has the store open (`Store.Options`).
        let store = try global.openStore(largeImportsInPlace: true)
        defer { store.close() }
        let options = ImportOptions(mode: replace ? .replace : .merge, patientID: patientID)
        let importer = FileImporter(store: store)
        var failures = 0
        for path in paths {
            let files: [ImportInputFile]
            do {
                if InputFiles.isDirectory(path) {
                    files = try InputFiles.folder(path)
                } else if try isRHExRecordFile(path) {
                    failures += importRHEx(path, store: store, options: options)
                    store.auditFromCLI(.importFiles, detail: "RHEx record file")
                    continue
                } else {
                    files = [ImportInputFile(name: path, bytes: try InputFiles.file(path, maxBytes: FHIRLimits.defaultMaxFileBytes))]
                }
            } catch {
                Console.err("hreaderd: \(error)")
                failures += 1
                continue
            }
            Console.err("\(path): importing \(files.count) file\(files.count == 1 ? "" : "s")…")
            let report = await importer.importFiles(files, options: options) { done, total in
                if total > 1, done < total, done % 100 == 0 { Console.err("\(path): \(done) of \(total) patients…") }
            }
            for line in report.lines { Console.out(line) }
            if report.hasFailures { failures += 1 }
            // Counts only: a file's name may be a person's.
            store.auditFromCLI(.importFiles, detail: "\(files.count) files, \(report.patients.count) patients, \(report.totals.entriesAdded) entries added")
        }
        if failures > 0 {
            throw CLIError("\(failures) file\(failures == 1 ? "" : "s") or record\(failures == 1 ? "" : "s") could not be imported in whole (see above); the rest was imported")
        }
    }

    /// An RHEx record file (one record, or one a line): read as a stream, as it always was, so a file of
    /// 500 records never sits in memory whole.
    private func isRHExRecordFile(_ path: String) throws -> Bool {
        let prefix: [UInt8]
        do { prefix = try StandardStreams.read(path, upTo: FileImporter.formatProbeBytes) } catch {
            switch error {
            case .missing: throw CLIError("cannot open \(path): no such file")
            case .denied: throw CLIError("cannot open \(path): permission denied")
            case .failed(let reason): throw CLIError("cannot open \(path): \(reason)")
            }
        }
        return FileImporter.format(of: prefix) == .rhex
    }

    /// Imports an RHEx record file; the number of failures.
    private func importRHEx(_ file: String, store: Store, options: ImportOptions) -> Int {
        var rhexOptions = options
        rhexOptions.mode = .replace
        if let failures = importLargeRHEx(file, store: store, options: rhexOptions) { return failures }
        var counts = ImportCounts()
        let reader: RecordFileReader
        do { reader = try RecordFileReader(path: file, parser: RecordParser(limits: .files)) } catch {
            Console.err("hreaderd: \(error)")
            return 1
        }
        var failures = 0
        var lastProgress = Date()
        do {
            while let item = try reader.next() {
                switch item.result {
                case .success(let record):
                    do {
                        counts.add(try store.importRecordSync(record, options: rhexOptions))
                    } catch {
                        counts.patientsFailed += 1
                        Console.err("\(file):\(item.line): cannot store the record: \(error)")
                    }
                case .failure(let error):
                    counts.patientsFailed += 1
                    Console.err("\(file):\(item.line): \(error)")
                }
                if Date().timeIntervalSince(lastProgress) >= Self.progressInterval {
                    lastProgress = Date()
                    Console.err("\(file): \(counts.patientsImported) records so far, \(counts.entriesImported) entries…")
                }
            }
        } catch {
            Console.err("hreaderd: \(error)")
            failures += 1
        }
        Console.out("\(file): \(counts.fileLine)")
        return failures + counts.patientsFailed
    }
}

extension ImportFileCommand {
    /// A record file of `StreamedRecordFile.minimumBytes` or more holding one record, imported as it is read
    /// (`StreamedRecordImport`); the number of failures. nil when the file is smaller, or holds one record a
    /// line, or its first pass finds it bad: `RecordFileReader` then reads it as before, and says what is wrong.
    private func importLargeRHEx(_ file: String, store: Store, options: ImportOptions) -> Int? {
        guard let stream = try? StreamedRecordFile(path: file), stream.byteCount >= StreamedRecordFile.minimumBytes,
              let head = try? stream.readHead() else { return nil }
        Console.err("\(file): one record of \(head.entries) entries, imported as it is read…")
        var lastProgress = Date()
        var counts = ImportCounts()
        do {
            counts.add(try StreamedRecordImport.run(stream, head: head, store: store, options: options) { written in
                guard Date().timeIntervalSince(lastProgress) >= Self.progressInterval else { return }
                lastProgress = Date()
                Console.err("\(file): \(written) of \(head.entries) entries…")
            })
        } catch let error as StoreError {
            counts.patientsFailed = 1
            Console.err("\(file):\(head.line): cannot store the record: \(error)")
        } catch {
            counts.patientsFailed = 1
            Console.err("\(file):\(head.line): \(error)")
        }
        Console.out("\(file): \(counts.fileLine)")
        return counts.patientsFailed
    }
}

extension ImportCounts {
    /// Records imported (added, updated or unchanged), and their entries: for the progress line.
    fileprivate var patientsImported: Int { patientsAdded + patientsUpdated + patientsUnchanged }
    fileprivate var entriesImported: Int { entriesAdded + entriesUpdated + entriesUnchanged }

    /// The one-line summary of a file (records that could not be read or stored are "bad").
    fileprivate var fileLine: String {
        "patients \(patientsAdded) added, \(patientsUpdated) updated, \(patientsUnchanged) unchanged; "
            + "entries \(entriesAdded) added, \(entriesUpdated) updated, \(entriesUnchanged) unchanged, \(entriesRemoved) removed"
            + (patientsFailed > 0 ? "; \(patientsFailed) bad" : "")
    }
}
