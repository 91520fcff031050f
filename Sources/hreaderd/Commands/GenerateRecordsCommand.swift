import ArgumentParser
import Foundation
import RHExClient

struct GenerateRecordsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate-records",
        abstract: "Write a synthetic family's RHEx records (one per line), for trying hreaderd out.",
        discussion: "Deterministic: the same seed gives the same records. No real person's data."
    )

    @Option(help: "Seed of the generator.")
    var seed: UInt64 = 1

    @Option(help: "Entries per patient.")
    var entries: Int = 300

    @Option(help: "Record shape: gen1 or gen2.")
    var shape: String = "gen1"

    @Option(help: ArgumentHelp("Output file; default stdout.", valueName: "file"))
    var output: String?

    func validate() throws {
        guard (0...2_000_000).contains(entries) else { throw ValidationError("--entries must be 0…2,000,000") }
        guard SyntheticRecords.Shape(rawValue: shape) != nil else {
            throw ValidationError("--shape must be one of \(SyntheticRecords.Shape.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() throws {
        let generator = SyntheticRecords(seed: seed)
        let shape = SyntheticRecords.Shape(rawValue: shape)!
        var bytes: [UInt8] = []
        for person in generator.family() {
            bytes += generator.record(for: person, entries: entries, shape: shape)
            bytes.append(0x0a)
        }
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: Data(bytes)) else { throw CLIError("cannot write \(output)") }
        } else {
            FileHandle.standardOutput.write(Data(bytes))
        }
    }
}
