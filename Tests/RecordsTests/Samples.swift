import Records
import HealthRecord
import TestSupport
import Testing

/// The RHEx sample records of `../shared/rhex-samples/` (see its README.md) that these tests read,
/// through `SharedSamples` (which finds the folder, or `HREADERD_RHEX_SAMPLES`).
enum Samples {
    static var available: Bool { SharedSamples.rhex.available }
    static var missingReason: Comment { SharedSamples.rhex.skipReason }

    /// The single-record JSON files (the C32/C-CDA XML files are for other importers).
    static let recordFiles = [
        "hreader_hs_henry_smith.json",
        "hreader_ns_nancy_smith.json",
        "hds_v2.1.1_rosa.json",
        "hds_v4_barry_berry.json",
    ]

    static let fixture500 = "pds_records_500.ndjson"

    static func path(_ name: String) -> String { SharedSamples.rhex.path(name) }

    static func bytes(_ name: String) throws -> [UInt8] { try SharedSamples.rhex.bytes(name) }

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
