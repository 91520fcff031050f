import Foundation
@testable import Records
import HealthRecord
import TestSupport
import Testing

/// Every document of `../shared/ccda-vendors/` (196 certification documents of 25 vendors) read, and per
/// document and entry type: the accounting adds up (every statement imported, merged or left out for a
/// reason), and the entries agree, within max(2, 15%), with an independent count of the document's facts
/// (`scripts/ccda-count-facts.py`: Python's ElementTree over the document, written apart from the reader).
@Suite("The vendors' C-CDA corpus", .enabled(if: SharedSamples.ccdaVendors.available, SharedSamples.ccdaVendors.skipReason))
struct CCDACorpusTests {
    /// The types both count.
    static let compared: [EntryType] = [.condition, .allergy, .medication, .immunization, .result, .vitalSign, .encounter, .procedure]

    static func agrees(_ read: Int, _ counted: Int) -> Bool {
        abs(read - counted) <= max(2, Int((Double(counted) * 0.15).rounded(.down)))
    }

    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The independent counts, by file path, from one run of the script over the folder.
    static func independentCounts(of folder: String) throws -> [String: [String: Int]] {
        let script = repository.appendingPathComponent("scripts/ccda-count-facts.py").path
        let result = try run("/usr/bin/python3", [script, folder])
        #expect(result.status == 0, "\(result.err)")
        var counts: [String: [String: Int]] = [:]
        for line in result.out.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            guard let file = object?["file"] as? String, let found = object?["counts"] as? [String: Int] else {
                Issue.record("the counter could not read a document: \(line)")
                continue
            }
            counts[file] = found
        }
        return counts
    }

    @Test("every document: the accounting adds up, and each type's entries agree with an independent count")
    func corpus() throws {
        let folder = SharedSamples.ccdaVendors.directory
        let counts = try Self.independentCounts(of: folder)
        #expect(counts.count >= 196)
        var byVendor: [String: (documents: Int, agreeing: Int)] = [:]
        var disagreements: [String] = []
        for path in counts.keys.sorted() {
            let vendor = URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let document = try CCDAReader().read(bytes, name: path)
            let accounting = document.accounting
            #expect(accounting.adds, "\(path): \(accounting)")
            var agreeing = true
            for type in Self.compared {
                let read = document.record.entries.lazy.filter { $0.type == type }.count
                let counted = counts[path]?[type.section] ?? 0
                if !Self.agrees(read, counted) {
                    agreeing = false
                    disagreements.append("\(vendor)/\(URL(fileURLWithPath: path).lastPathComponent): \(type.section) read \(read), counted \(counted)")
                }
            }
            byVendor[vendor, default: (0, 0)].documents += 1
            if agreeing { byVendor[vendor, default: (0, 0)].agreeing += 1 }
        }
        // The table of docs/fidelity.md.
        var table = ["| vendor | documents | within max(2, 15%) on every type |", "|---|---|---|"]
        for vendor in byVendor.keys.sorted(by: { $0.lowercased() < $1.lowercased() }) {
            table.append("| \(vendor) | \(byVendor[vendor]!.documents) | \(byVendor[vendor]!.agreeing) |")
        }
        let documents = byVendor.values.reduce(0) { $0 + $1.documents }, agreeing = byVendor.values.reduce(0) { $0 + $1.agreeing }
        table.append("| all | \(documents) | \(agreeing) |")
        print(table.joined(separator: "\n"))
        print(disagreements.joined(separator: "\n"))
        #expect(disagreements.isEmpty, "\(disagreements.count) document types disagree: \(disagreements.prefix(20))")
    }
}
