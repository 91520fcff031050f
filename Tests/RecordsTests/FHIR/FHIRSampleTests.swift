import Foundation
import Records
import HealthRecord
import TestSupport
import Testing

/// Every file and folder of ../shared/fhir-samples, read by the FHIR reader, against what the files hold
/// (computed in the test from the JSON with Foundation: `FHIRSampleExpectations`).
@Suite("FHIR samples", .enabled(if: SharedSamples.fhir.available, SharedSamples.fhir.skipReason))
struct FHIRSampleTests {
    static let bundles = [
        "synthea_child_daisey_johns.json",
        "synthea_adult_chronic_estrella_daugherty.json",
        "synthea_infant_minimal_luigi_wiegand.json",
        "ccda21_companion_ccd.fhir.json",
    ]
    static let bulkFolder = "bulk-10-patients"

    static func read(_ name: String) throws -> FHIRReader.Result {
        let path = SharedSamples.fhir.path(name)
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if isDirectory.boolValue {
            let files = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
            return FHIRReader().assemble(try files.map { file in
                try FHIRInput.read(Array(try Data(contentsOf: URL(fileURLWithPath: path + "/" + file))), name: file)
            })
        }
        return try FHIRReader().read(Array(try Data(contentsOf: URL(fileURLWithPath: path))), name: name)
    }

    static func expectations(_ name: String) throws -> FHIRSampleExpectations {
        let path = SharedSamples.fhir.path(name)
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        let urls = isDirectory.boolValue
            ? try FileManager.default.contentsOfDirectory(atPath: path).sorted().map { URL(fileURLWithPath: path + "/" + $0) }
            : [URL(fileURLWithPath: path)]
        return try FHIRSampleExpectations(files: urls)
    }

    @Test("each sample: patients, and entries of each type, as the file holds them", arguments: bundles + [bulkFolder])
    func countsMatchTheFile(name: String) throws {
        let result = try Self.read(name)
        let expected = try Self.expectations(name)
        #expect(result.patients.count == expected.patientCount)
        #expect(result.patients.allSatisfy { $0.error == nil && $0.hasPatientResource })
        #expect(result.problems.isEmpty)
        var counts: [EntryType: Int] = [:]
        for patient in result.patients {
            for entry in patient.record?.entries ?? [] { counts[entry.type, default: 0] += 1 }
        }
        #expect(counts == expected.entryCounts)
        var kept: [String: Int] = [:]
        for patient in result.patients { for (type, count) in patient.kept { kept[type, default: 0] += count } }
        #expect(kept == expected.keptCounts)
    }

    @Test("each sample: entry ids are unique within a patient and the same on a second read", arguments: bundles + [bulkFolder])
    func idsAreStable(name: String) throws {
        let first = try Self.read(name)
        let second = try Self.read(name)
        for (a, b) in zip(first.patients, second.patients) {
            let ids = a.record?.entries.map(\.id) ?? []
            #expect(Set(ids).count == ids.count)
            #expect(ids == b.record?.entries.map(\.id))
            #expect(a.record?.recordID == b.record?.recordID)
        }
    }

    @Test("each sample: dates, values, units and descriptions of observations are the file's", arguments: bundles)
    func observationsMatchTheFile(name: String) throws {
        let result = try Self.read(name)
        let expected = try Self.expectations(name)
        let entries = result.patients.flatMap { $0.record?.entries ?? [] }
        let bySource = Dictionary(grouping: entries, by: { $0.sourceID ?? "" })
        var checked = 0
        for resource in expected.resources where FHIRSampleExpectations.type(resource) == "Observation" {
            guard let id = resource["id"] as? String, let made = bySource["Observation/" + id] else { continue }
            let effective = (resource["effectiveDateTime"] as? String).flatMap(FHIRSampleExpectations.seconds)
            let code = resource["code"] as? [String: Any]
            let codings = code?["coding"] as? [[String: Any]] ?? []
            if let quantity = resource["valueQuantity"] as? [String: Any] {
                #expect(made.count == 1)
                #expect(Self.same(made[0].value, quantity["value"]))
                #expect(made[0].units == (quantity["unit"] as? String ?? quantity["code"] as? String))
                #expect(made[0].description == (code?["text"] as? String ?? codings.first?["display"] as? String))
                #expect(made[0].time == effective)
                checked += 1
            } else if let components = resource["component"] as? [[String: Any]], resource.keys.allSatisfy({ !$0.hasPrefix("value") }) {
                let withValues = components.filter { $0["valueQuantity"] != nil }
                #expect(made.count == withValues.count)
                for component in withValues {
                    let componentCode = component["code"] as? [String: Any]
                    let display = componentCode?["text"] as? String
                        ?? (componentCode?["coding"] as? [[String: Any]])?.first?["display"] as? String
                    let quantity = component["valueQuantity"] as? [String: Any]
                    let match = made.first { $0.description == display }
                    #expect(Self.same(match?.value, quantity?["value"]))
                    #expect(match?.time == effective)
                }
                checked += 1
            }
        }
        #expect(checked > 0)
    }

    /// Foundation's JSONSerialization rounds long decimals (50.976089032460266 reads as 50.97608903246028,
    /// 2 ulp off); the importer converts them exactly. Equal to 12 significant digits is the same value.
    static func same(_ imported: Double?, _ file: Any?) -> Bool {
        guard let imported, let number = (file as? NSNumber)?.doubleValue else { return imported == nil && file == nil }
        return abs(imported - number) <= 1e-12 * max(1, abs(number))
    }

    @Test("each sample: conditions' onset and abatement, encounters' periods, immunizations' dates", arguments: bundles)
    func datesMatchTheFile(name: String) throws {
        let result = try Self.read(name)
        let expected = try Self.expectations(name)
        let entries = result.patients.flatMap { $0.record?.entries ?? [] }
        let bySource = Dictionary(entries.map { ($0.sourceID ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        for resource in expected.resources {
            guard let id = resource["id"] as? String else { continue }
            let type = FHIRSampleExpectations.type(resource)
            guard let entry = bySource[type + "/" + id] else { continue }
            switch type {
            case "Condition":
                let onset = (resource["onsetDateTime"] as? String ?? resource["recordedDate"] as? String).flatMap(FHIRSampleExpectations.seconds)
                #expect(entry.startTime == onset)
                #expect(entry.endTime == (resource["abatementDateTime"] as? String).flatMap(FHIRSampleExpectations.seconds))
            case "Encounter":
                let period = resource["period"] as? [String: Any]
                #expect(entry.startTime == (period?["start"] as? String).flatMap(FHIRSampleExpectations.seconds))
                #expect(entry.endTime == (period?["end"] as? String).flatMap(FHIRSampleExpectations.seconds))
            case "Immunization":
                #expect(entry.time == (resource["occurrenceDateTime"] as? String).flatMap(FHIRSampleExpectations.seconds))
                let vaccine = resource["vaccineCode"] as? [String: Any]
                let display = vaccine?["text"] as? String ?? (vaccine?["coding"] as? [[String: Any]])?.first?["display"] as? String
                #expect(entry.description == display)
            default:
                break
            }
        }
    }

    @Test("Daisey Johns: demographics, identifiers and the blood-pressure readings the timeline groups")
    func daisey() throws {
        let result = try Self.read("synthea_child_daisey_johns.json")
        let record = try #require(result.patients.first?.record)
        #expect(record.name == "Daisey Johns" || record.name.hasPrefix("Daisey"))
        #expect(record.gender == "F")
        #expect(record.birthdate == FHIRSampleExpectations.seconds("2015-04-04"))
        #expect(!record.identifiers.isEmpty)
        let systolic = record.entries.filter { $0.description == "Systolic Blood Pressure" }
        let diastolic = record.entries.filter { $0.description == "Diastolic Blood Pressure" }
        // 17 blood-pressure panels, two readings each (the sample's README).
        #expect(systolic.count == 17 && diastolic.count == 17)
        #expect(systolic.allSatisfy { $0.type == .vitalSign && $0.value != nil && $0.units == "mm[Hg]" })
        #expect(record.entries.contains { $0.codes["SNOMED-CT"] != nil })
        #expect(record.entries.contains { $0.codes["LOINC"] != nil })
        #expect(record.entries.contains { $0.codes["CVX"] != nil })
    }

    @Test("the C-CDA companion: medicationReference resolved to the Medication in the bundle")
    func medicationReference() throws {
        let result = try Self.read("ccda21_companion_ccd.fhir.json")
        let expected = try Self.expectations("ccda21_companion_ccd.fhir.json")
        let medications = expected.resources.filter { FHIRSampleExpectations.type($0) == "Medication" }
        let names = Set(medications.compactMap { medication -> String? in
            let code = medication["code"] as? [String: Any]
            return code?["text"] as? String ?? (code?["coding"] as? [[String: Any]])?.first?["display"] as? String
        })
        let entries = result.patients.flatMap { $0.record?.entries ?? [] }.filter { $0.type == .medication }
        #expect(!names.isEmpty)
        #expect(entries.contains { names.contains($0.description ?? "") })
        #expect(entries.allSatisfy { $0.description != nil })
    }

    @Test("the Bulk Data folder: resources of 13 people across four files, each with its own patient")
    func bulk() throws {
        let result = try Self.read(Self.bulkFolder)
        #expect(result.files.count == 4)
        #expect(result.files.allSatisfy { $0.shape == .ndjson })
        #expect(result.patients.count == 13)
        #expect(Set(result.patients.compactMap { $0.record?.recordID }).count == 13)
        #expect(result.unowned.isEmpty)
    }
}
