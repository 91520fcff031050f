import ArgumentParser
import Foundation
import SyntheticRecords

/// `generate-records`: a synthetic family's records, as RHEx records one per line or as one FHIR R4
/// bundle, for the demo, tests and benchmarks. A tool, not part of the daemon.
struct GenerateRecords: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate-records",
        abstract: "Write a synthetic family's records (RHEx records one per line, or a FHIR R4 bundle), for trying hreaderd out.",
        discussion: "Deterministic: the same seed (and --end) gives the same records. No real person's data."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case rhex, fhir
    }

    @Option(help: "Seed of the generator.")
    var seed: UInt64 = 1

    @Option(help: "Entries per patient (0…2,000,000); with --format fhir, a middle-aged adult's (the others in proportion, unless --plain).")
    var entries: Int = 300

    @Option(help: "rhex: RHEx records, one per line; fhir: one FHIR R4 collection Bundle of the family.")
    var format: Format = .rhex

    @Option(help: "RHEx record shape: \(SyntheticRecords.Shape.allValueStrings.joined(separator: " or ")).")
    var shape: SyntheticRecords.Shape = .gen1

    @Option(help: "RHEx entry mix: sparse (a history from birth or 1990, as every record so far) or dense (35 years, about 2,500 entries a month at a million: 40 % vital signs, 25 % results).")
    var mix: SyntheticRecords.Mix = .sparse

    @Option(help: ArgumentHelp("Where the records' history ends: epoch seconds, or `today` (default: 2025-01-01, so output is the same on every day).", valueName: "when"))
    var end: String?

    @Flag(help: "FHIR: every person with exactly --entries entries, no reference ranges, nobody deceased (for benchmarks). Default: as real records are.")
    var plain = false

    @Option(help: "Only the family's first N people.")
    var members: Int?

    @Option(help: ArgumentHelp("Output file; default stdout.", valueName: "file"))
    var output: String?

    func validate() throws {
        guard (0...2_000_000).contains(entries) else { throw ValidationError("--entries must be 0…2,000,000") }
        if let members, members < 1 { throw ValidationError("--members must be at least 1") }
        if format == .fhir, mix != .sparse { throw ValidationError("--mix is for RHEx records (--format rhex)") }
        _ = try endSeconds()
    }

    func endSeconds() throws -> Int64 {
        switch end {
        case nil: return SyntheticRecords.referenceEnd
        case "today"?: return Int64(Date().timeIntervalSince1970)
        case let text?:
            guard let seconds = Int64(text) else { throw ValidationError("--end must be epoch seconds or `today`") }
            return seconds
        }
    }

    func run() throws {
        let generator = SyntheticRecords(seed: seed)
        guard let output else {
            try write(generator) { FileHandle.standardOutput.write(Data($0)) }
            return
        }
        guard FileManager.default.createFile(atPath: output, contents: nil), let handle = FileHandle(forWritingAtPath: output) else {
            throw ValidationError("cannot write \(output)")
        }
        defer { try? handle.close() }
        try write(generator) { handle.write(Data($0)) }
    }

    /// Streams the records: a million-entry record is never held whole.
    func write(_ generator: SyntheticRecords, to sink: ([UInt8]) -> Void) throws {
        let end = try endSeconds()
        switch format {
        case .fhir:
            generator.writeFHIRBundle(entries: entries, end: end, members: members, lifelike: !plain, to: sink)
        case .rhex:
            for person in generator.family().prefix(members ?? Int.max) {
                generator.writeRecord(for: person, entries: entries, shape: shape, mix: mix, end: end, to: sink)
                sink([0x0a])
            }
        }
    }
}

extension SyntheticRecords.Shape: ExpressibleByArgument {}
extension SyntheticRecords.Mix: ExpressibleByArgument {}

GenerateRecords.main()
