import Foundation
@testable import Records
import HealthRecord
import TestSupport
import Testing

/// Every file of `../shared/fhir-vendors/` (US Core, IPS and specification examples, Blue Button claims, a
/// rendering library's fixtures): read or refused with a reason, and every resource of a mapped type
/// accounted for: imported, merged with itself given again, or left out for a reason.
@Suite("FHIR from real producers", .enabled(if: SharedSamples.fhirVendors.available, SharedSamples.fhirVendors.skipReason))
struct FHIRVendorTests {
    static func files() -> [String] {
        let root = SharedSamples.fhirVendors.directory
        let walker = FileManager.default.enumerator(atPath: root)
        var out: [String] = []
        while let path = walker?.nextObject() as? String {
            if path.hasSuffix(".json") || path.hasSuffix(".ndjson") { out.append(root + "/" + path) }
        }
        return out.sorted()
    }

    @Test("each file imports or is refused with a reason; each patient's accounting adds up and covers the file's mapped resources")
    func everyFile() throws {
        let files = Self.files()
        #expect(files.count > 400)
        var read = 0, refused = 0, mapped = 0, imported = 0
        for path in files {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let input: FHIRInput.File
            do {
                input = try FHIRInput.read(bytes, name: path)
            } catch {
                #expect(!error.description.isEmpty)
                refused += 1
                continue
            }
            read += 1
            let result = FHIRReader().assemble([input])
            var accounted = 0
            for patient in result.patients {
                if let error = patient.error {
                    #expect(!error.isEmpty)
                    continue
                }
                #expect(patient.accounting.adds, "\(path) \(patient.reference): \(patient.accounting)")
                accounted += patient.accounting.elements
                imported += patient.accounting.imported
            }
            // Every resource of a mapped type is some patient's, or of no patient (counted as such).
            let inFile = input.resources.filter { FHIREntryMapping.mappedTypes.contains($0.type) }.count
            let unowned = result.unowned.filter { FHIREntryMapping.mappedTypes.contains($0.key) }.values.reduce(0, +)
            if !result.patients.contains(where: { $0.error != nil }) {
                #expect(accounted + unowned == inFile, "\(path): \(accounted) accounted + \(unowned) of no patient, \(inFile) in the file")
            }
            mapped += inFile
        }
        print("fhir-vendors: \(files.count) files, \(read) read, \(refused) refused; \(mapped) resources of mapped types, \(imported) imported")
        #expect(read > refused)
    }

    @Test("a resource given twice is merged; one entered in error is left out with that reason")
    func mergedAndLeftOut() throws {
        let patient = #"{"resourceType":"Patient","id":"p1"}"#
        let condition = #"{"resourceType":"Condition","id":"c1","subject":{"reference":"Patient/p1"},"code":{"text":"Asthma"}}"#
        let wrong = #"{"resourceType":"Condition","id":"c2","verificationStatus":{"coding":[{"code":"entered-in-error"}]},"status":"entered-in-error","subject":{"reference":"Patient/p1"},"code":{"text":"Gout"}}"#
        let ndjson = [patient, condition, condition, wrong].joined(separator: "\n")
        let result = try FHIRReader().read(Array(ndjson.utf8), name: "x.ndjson")
        let accounting = try #require(result.patients.first?.accounting)
        #expect(accounting.elements == 3 && accounting.imported == 1 && accounting.merged == 1)
        #expect(accounting.leftOut == ["entered_in_error": 1])
        #expect(accounting.adds)
    }
}
