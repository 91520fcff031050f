import Foundation
import Records
import Store
import TestSupport
import Testing

/// The third-party sample records in `../shared/rhex-samples/` (see its README.md). Tests read them
/// where they are and never copy them into the project; where the folder is absent (a clone without
/// the shared folder), the tests that need it are skipped with `Samples.missingReason`.
enum Samples {
    /// `HREADERD_RHEX_SAMPLES` overrides; else the folder beside the repository:
    /// this file is `<repo>/Tests/RHExClientTests/Samples.swift`, samples are `<repo>/../shared/rhex-samples`.
    static let directory: URL = {
        if let override = ProcessInfo.processInfo.environment["HREADERD_RHEX_SAMPLES"], !override.isEmpty {
            return URL(fileURLWithPath: override, isDirectory: true)
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent() // RHExClientTests
            .deletingLastPathComponent() // Tests
            .deletingLastPathComponent() // repository
            .deletingLastPathComponent()
            .appendingPathComponent("shared/rhex-samples", isDirectory: true)
    }()

    static var available: Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("README.md").path)
    }

    static let missingReason: Comment = "the shared RHEx sample records are not at ../shared/rhex-samples (set HREADERD_RHEX_SAMPLES)"

    /// The single-record JSON files (the C32/C-CDA XML files are for other importers).
    static let recordFiles = [
        "hreader_hs_henry_smith.json",
        "hreader_ns_nancy_smith.json",
        "hds_v2.1.1_rosa.json",
        "hds_v4_barry_berry.json",
    ]

    static let fixture500 = "pds_records_500.ndjson"

    static func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func record(_ name: String) throws -> PatientRecord {
        try RecordParser().parse(try bytes(name))
    }

    /// Each line of the 500-patient fixture.
    static func fixtureLines() throws -> [[UInt8]] {
        try bytes(fixture500).split(separator: UInt8(ascii: "\n")).map(Array.init)
    }
}

extension PatientRecord {
    func entries(_ type: EntryType) -> [Entry] {
        entries.filter { $0.type == type }
    }

    func entry(_ type: EntryType, sourceID: String) -> Entry? {
        entries.first { $0.type == type && $0.sourceID == sourceID }
    }

    var countsBySection: [String: Int] {
        var counts: [String: Int] = [:]
        for entry in entries { counts[entry.type.section, default: 0] += 1 }
        return counts
    }
}
