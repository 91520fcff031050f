import ArgumentParser
import FoundationEssentials
import Store
import TimelineAPI

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write one patient's whole record as JSON (the same document as /patients/{id}/export.json).",
        discussion: "Every entry comes with its raw source JSON, and every timeline post: all of the patient's data."
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The patient id (see `hreaderd patients`).", valueName: "id"))
    var patient: String

    @Option(help: ArgumentHelp("Write to this file (mode 0600) instead of stdout.", valueName: "file"))
    var output: String?

    func run() throws {
        let store = try global.openStore()
        defer { store.close() }
        guard let document = try ExportDocument.encodePersonSync(patientID: patient, from: store) else {
            throw CLIError("there is no patient \(patient) (see `hreaderd patients`)")
        }
        store.auditFromCLI(.export, patient: patient)
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: Data(document + [0x0a]), attributes: [.posixPermissions: 0o600]) else {
                throw CLIError("cannot write \(output)")
            }
            Console.err("wrote \(output) (\(document.count) bytes)")
        } else {
            StandardStreams.out(document + [0x0a])
        }
    }
}
