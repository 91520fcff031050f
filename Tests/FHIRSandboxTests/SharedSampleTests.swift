import Foundation
@testable import FHIRSandbox
import TestSupport
import Testing

/// The sandbox serving the shared Synthea bundles (`../shared/fhir-samples`).
@Suite("Serving the shared samples", .enabled(if: SharedSamples.fhir.available, SharedSamples.fhir.skipReason))
struct SharedSampleTests {
    /// What the bundle itself says: the Patient's id, and how many of its resources are the Patient or
    /// refer to it (by its urn:uuid fullUrl or as Patient/ID) by subject, patient or beneficiary.
    static func expected(_ bytes: [UInt8]) throws -> (patient: String, count: Int) {
        let bundle = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let entries = (bundle["entry"] as? [[String: Any]]) ?? []
        let patientEntry = try #require(entries.first { ($0["resource"] as? [String: Any])?["resourceType"] as? String == "Patient" })
        let patient = try #require((patientEntry["resource"] as? [String: Any])?["id"] as? String)
        let names = Set([patientEntry["fullUrl"] as? String, "Patient/" + patient].compactMap { $0 })
        let count = entries.count { entry in
            guard let resource = entry["resource"] as? [String: Any] else { return false }
            if resource["resourceType"] as? String == "Patient" { return true }
            return ["subject", "patient", "beneficiary"].contains { field in
                ((resource[field] as? [String: Any])?["reference"] as? String).map(names.contains) ?? false
            }
        }
        return (patient, count)
    }

    @Test("$everything pages add up to every resource of the patient exactly once", arguments: [
        "synthea_child_daisey_johns.json", "synthea_adult_chronic_estrella_daugherty.json", "synthea_infant_minimal_luigi_wiegand.json",
    ])
    func everything(file: String) async throws {
        let bytes = try SharedSamples.fhir.bytes(file)
        let (patient, count) = try Self.expected(bytes)
        try await Harness.with({ $0.pageSize = 40 }, bundles: [bytes]) { harness in
            let tokens = try await harness.signIn()
            #expect(tokens.patient == patient)
            let pages = try await harness.allPages("/fhir/Patient/\(patient)/$everything", token: tokens.access)
            #expect(pages.entries.count == count)
            #expect(Set(pages.fullUrls).count == count)
            #expect(pages.total == count)
            #expect(pages.pages == (count + 39) / 40)
            // Served references are Type/id: no urn:uuid is left in what a client gets.
            let text = try await harness.get("/fhir/Patient/\(patient)/$everything?_count=500", token: tokens.access).text
            #expect(!text.contains("urn:uuid:"))
        }
    }

    @Test("type searches of a Synthea record: every type, with _lastUpdated after a change")
    func searches() async throws {
        let bytes = try SharedSamples.fhir.bytes("synthea_adult_chronic_estrella_daugherty.json")
        let (patient, count) = try Self.expected(bytes)
        try await Harness.with(bundles: [bytes]) { harness in
            let tokens = try await harness.signIn()
            var total = 1
            let types = ["AllergyIntolerance", "CarePlan", "Claim", "Condition", "DiagnosticReport", "Encounter", "ExplanationOfBenefit",
                         "Goal", "Immunization", "MedicationRequest", "Observation", "Procedure"]
            for type in types {
                total += try await harness.allPages("/fhir/\(type)?patient=\(patient)&_count=100", token: tokens.access).entries.count
            }
            #expect(total == count)
            let laboratory = try await harness.allPages("/fhir/Observation?patient=\(patient)&category=laboratory", token: tokens.access)
            #expect(laboratory.entries.count == 112)

            harness.sandbox.setNow(1_770_000_000)
            let condition = try #require(harness.sandbox.resourceKeys(patient: patient).first { $0.hasPrefix("Condition/") })
            try harness.sandbox.touch(resourceType: "Condition", id: String(condition.dropFirst("Condition/".count)))
            let changed = try await harness.allPages("/fhir/Condition?patient=\(patient)&_lastUpdated=gt2026-01-01T00:00:00Z", token: tokens.access)
            #expect(changed.fullUrls == [harness.sandbox.baseURL + "/" + condition])
        }
    }

    @Test("the C-CDA companion bundle: Patient/ID references, Medications included with their requests")
    func ccdaCompanion() async throws {
        let bytes = try SharedSamples.fhir.bytes("ccda21_companion_ccd.fhir.json")
        try await Harness.with(bundles: [bytes]) { harness in
            let tokens = try await harness.signIn()
            let pages = try await harness.allPages("/fhir/Patient/\(tokens.patient)/$everything", token: tokens.access)
            let included = pages.entries.filter { ($0["search"] as? [String: Any])?["mode"] as? String == "include" }
            #expect(included.count == 2)
            #expect(included.allSatisfy { ($0["resource"] as? [String: Any])?["resourceType"] as? String == "Medication" })
        }
    }

    @Test("the bulk export folder: each patient's Immunizations")
    func bulk() async throws {
        let folder = SharedSamples.fhir.path("bulk-10-patients")
        let data = try FHIRDataset(paths: [folder])
        let patient = try #require(data.patientIDs.max { data.count(patient: $0) < data.count(patient: $1) })
        var configuration = FHIRSandbox.Configuration()
        configuration.autoApprove = true
        configuration.autoApprovePatient = patient
        let sandbox = FHIRSandbox(configuration: configuration, data: data)
        let port = try await sandbox.start()
        let harness = Harness(sandbox: sandbox, http: HTTPTestClient(port: port))
        do {
            let tokens = try await harness.signIn()
            let pages = try await harness.allPages("/fhir/Patient/\(patient)/$everything", token: tokens.access)
            #expect(pages.entries.count == data.count(patient: patient))
            let immunizations = try await harness.allPages("/fhir/Immunization?patient=\(patient)", token: tokens.access)
            #expect(immunizations.entries.count == data.resources.count { $0.type == "Immunization" && $0.patientID == patient })
        } catch {
            await sandbox.shutdown()
            throw error
        }
        await sandbox.shutdown()
    }
}
