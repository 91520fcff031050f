import ArgumentParser
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import HealthRecord
import Records
import Store
import TimelineAPI

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write one patient's whole record as JSON (the same document as /patients/{id}/export.json), or as an IPS or a CCD.",
        discussion: """
            json: every entry comes with its raw source JSON, and every timeline post: all of the patient's data.
            ips: an International Patient Summary (FHIR R4 document Bundle, as /patients/{id}/ips.json).
            ccda: a C-CDA R2.1 Continuity of Care Document (as /patients/{id}/ccda.xml).
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, ips, ccda
    }

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The patient id (see `hreaderd patients`).", valueName: "id"))
    var patient: String

    @Option(help: ArgumentHelp("Write to this file (mode 0600) instead of stdout.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("json (hreaderd's own, everything), ips or ccda (for a doctor's system).", valueName: "format"))
    var format: Format = .json

    @Option(help: ArgumentHelp("ips, ccda: the sections beside problems, allergies and medications, comma-separated (default: all).",
                               valueName: "names"))
    var sections: String?

    @Option(help: ArgumentHelp("ips, ccda: results and vital signs from this day (YYYY-MM-DD), RFC 3339 time or epoch seconds on.",
                               valueName: "time"))
    var since: String?

    func run() throws {
        if format == .json, sections != nil || since != nil { throw CLIError("--sections and --since are for --format ips or ccda") }
        let store = try global.openStore()
        defer { store.close() }
        if format != .json { return try share(store) }
        // Written as it is read (`ExportFileWriter`): a long record's export is never held whole. A file is
        // written under a temporary name and renamed when complete, so a failed export leaves none.
        guard let output else {
            guard try ExportDocument.writePerson(patientID: patient, from: store, to: STDOUT_FILENO) != nil else {
                throw CLIError("there is no patient \(patient) (see `hreaderd patients`)")
            }
            StandardStreams.out([0x0a])
            store.auditFromCLI(.export, patient: patient)
            return
        }
        // `writePerson` answers nil for an unknown patient: nothing is kept then.
        let written = try Self.writeAtomically(to: output) { descriptor in
            guard let written = try ExportDocument.writePerson(patientID: patient, from: store, to: descriptor) else {
                throw CLIError("there is no patient \(patient) (see `hreaderd patients`)")
            }
            do { try FileSystem.writeAll(descriptor, [0x0a], path: output) } catch { throw CLIError("cannot \(error)") }
            return written
        }
        store.auditFromCLI(.export, patient: patient)
        Console.err("wrote \(output) (\(written) bytes)")
    }

    /// The IPS or the CCD, written whole (a summary for a doctor, not the whole record).
    private func share(_ store: Store) throws {
        var chosen = SharedSection.allCases
        if let sections {
            switch SharedSection.parseList(sections) {
            case .success(let names): chosen = names
            case .failure(let unknown):
                throw CLIError("there is no section \(unknown.name); the sections are \(SharedSection.allCases.map(\.name).joined(separator: ", "))")
            }
        }
        // As the route's `?since=`: a day starts at local midnight.
        var start: Int64?
        if let since {
            guard let time = WindowEnd.parse(since, calendar: .current, dayStart: true) else {
                throw CLIError("--since must be a day (YYYY-MM-DD), an RFC 3339 time or epoch seconds")
            }
            start = time
        }
        let options = SharingOptions(sections: chosen, since: start, now: Store.now())
        guard let record = try store.sharedRecordSync(patientID: patient) else {
            throw CLIError("there is no patient \(patient) (see `hreaderd patients`)")
        }
        let bytes = format == .ips ? IPSWriter.write(record, options: options) : CCDWriter.write(record, options: options)
        guard let output else {
            StandardStreams.out(bytes + [0x0a])
            store.auditFromCLI(.export, patient: patient)
            return
        }
        try Self.writeAtomically(to: output) { descriptor in
            do { try FileSystem.writeAll(descriptor, bytes + [0x0a], path: output) } catch { throw CLIError("cannot \(error)") }
        }
        store.auditFromCLI(.export, patient: patient)
        Console.err("wrote \(output) (\(bytes.count) bytes)")
    }

    /// Writes `output` (mode 0600) under a temporary name, synced, then renamed: a failed export leaves no
    /// file, and a reader never sees half of one.
    @discardableResult
    private static func writeAtomically<T>(to output: String, _ write: (Int32) throws -> T) throws -> T {
        let partial = output + ".partial-\(getpid())"
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CLIError("cannot write \(output): \(String(cString: strerror(errno)))") }
        let result: T
        do {
            result = try write(descriptor)
            guard fsync(descriptor) == 0 else { throw CLIError("cannot write \(output): \(String(cString: strerror(errno)))") }
        } catch {
            close(descriptor)
            unlink(partial)
            throw error
        }
        close(descriptor)
        guard rename(partial, output) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw CLIError("cannot write \(output): \(reason)")
        }
        return result
    }
}
