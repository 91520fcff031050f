import ArgumentParser
import Foundation
import SyntheticRecords

/// `generate-records`: a synthetic family's RHEx records, one per line, for the demo, tests and
/// benchmarks. A tool, not part of the daemon.
struct GenerateRecords: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate-records",
        abstract: "Write a synthetic family's RHEx records (one per line), for trying hreaderd out.",
        discussion: "Deterministic: the same seed gives the same records. No real person's data."
    )

    @Option(help: "Seed of the generator.")
    var seed: UInt64 = 1

    @Option(help: "Entries per patient (0…2,000,000).")
    var entries: Int = 300

    @Option(help: "Record shape: \(SyntheticRecords.Shape.allValueStrings.joined(separator: " or ")).")
    var shape: SyntheticRecords.Shape = .gen1

    @Option(help: ArgumentHelp("Output file; default stdout.", valueName: "file"))
    var output: String?

    func validate() throws {
        guard (0...2_000_000).contains(entries) else { throw ValidationError("--entries must be 0…2,000,000") }
    }

    func run() throws {
        let generator = SyntheticRecords(seed: seed)
        var bytes: [UInt8] = []
        for person in generator.family() {
            bytes += generator.record(for: person, entries: entries, shape: shape)
            bytes.append(0x0a)
        }
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: Data(bytes)) else {
                throw ValidationError("cannot write \(output)")
            }
        } else {
            FileHandle.standardOutput.write(Data(bytes))
        }
    }
}

extension SyntheticRecords.Shape: ExpressibleByArgument {}

GenerateRecords.main()
