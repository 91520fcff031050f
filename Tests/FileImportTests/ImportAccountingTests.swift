import Foundation
import ImportJobs
import Records
import HealthRecord
import Store
import TestSupport
import Testing

/// The import report's accounting (`"accounted"`), per patient: every statement of a C-CDA document and
/// every FHIR resource of a mapped type imported, merged with a duplicate, or left out for a reason.
@Suite("the import report accounts for every statement")
struct ImportAccountingTests {
    static func accounted(_ json: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let patients = try #require(object?["patients"] as? [[String: Any]])
        return try #require(patients.first?["accounted"] as? [String: Any])
    }

    @Test("FHIR: a resource given twice is merged, one entered in error left out, in the report's JSON and lines", arguments: [false, true])
    func fhir(streamed: Bool) async throws {
        let wrong = #"{"resourceType":"Condition","id":"c9","status":"entered-in-error","subject":{"reference":"Patient/p1"},"code":{"text":"Gout"}}"#
        try await FileImportTests.withStore(streamed: streamed) { _, importer in
            let files = [ImportInputFile(name: "a.json", bytes: FileImportTests.bundle([FileImportTests.patient, FileImportTests.condition("c1"),
                                                                                        FileImportTests.condition("c2"), wrong])),
                         ImportInputFile(name: "b.json", bytes: FileImportTests.bundle([FileImportTests.condition("c1")]))]
            let report = await importer.importFiles(files)
            let accounting = try #require(report.patients.first?.accounting)
            #expect(accounting.elements == 4 && accounting.imported == 2 && accounting.merged == 1)
            #expect(accounting.leftOut == ["entered_in_error": 1] && accounting.adds)
            let json = try Self.accounted(report.json)
            #expect(json["unit"] as? String == "resources" && json["elements"] as? Int == 4 && json["imported"] as? Int == 2)
            #expect(json["merged"] as? Int == 1 && (json["left_out"] as? [String: Int]) == ["entered_in_error": 1])
            #expect(report.lines.contains { $0.contains("accounted: 4 resources: 2 imported, 1 merged") && $0.contains("entered in error: 1") })
        }
    }

    @Test("C-CDA: Kinsights' child record, every vital sign accounted for; the store adds what the report says was imported",
          .enabled(if: SharedSamples.ccda.available, SharedSamples.ccda.skipReason))
    func ccda() async throws {
        try await FileImportTests.withStore { _, importer in
            let bytes = try SharedSamples.ccda.bytes("kinsights_phr_child_timmy_MESSY.xml")
            let report = await importer.importFiles([ImportInputFile(name: "timmy.xml", bytes: bytes)])
            let patient = try #require(report.patients.first)
            let accounting = try #require(patient.accounting)
            #expect(accounting.adds, "\(accounting)")
            let added = patient.entries.values.reduce(0) { $0 + $1.added }
            #expect(added == accounting.imported)
            let json = try Self.accounted(report.json)
            #expect(json["unit"] as? String == "entries")
            let left = (json["left_out"] as? [String: Int] ?? [:]).values.reduce(0, +)
            #expect(json["elements"] as? Int == (json["imported"] as? Int ?? -1) + (json["merged"] as? Int ?? -1) + left)
            // The file line says entries, not resources.
            #expect(report.lines.first?.contains("C-CDA document") == true && report.lines.first?.contains("entries") == true)
            #expect(report.lines.first?.contains("resource") == false)
        }
    }
}
