import Foundation
@testable import FHIRSandbox
import TestSupport
import Testing

@Suite("Loading FHIR data")
struct DatasetTests {
    @Test("urn:uuid references become Type/id, and each resource finds its patient")
    func references() throws {
        let data = try FHIRDataset(documents: [TestData.bundle])
        #expect(data.patientIDs == [TestData.alice, TestData.bob])
        #expect(data.count(patient: TestData.alice) == TestData.aliceResources)
        #expect(data.count(patient: TestData.bob) == TestData.bobResources)
        #expect(data.count == TestData.aliceResources + TestData.bobResources + 2)
        let request = try #require(data.resources.first { $0.key == "MedicationRequest/mr-1" })
        #expect(request.json["subject"]?.reference == "Patient/alice")
        #expect(request.json["medicationReference"]?.reference == "Medication/med-1")
        // An entry without an id takes its fullUrl's.
        #expect(data.resources.contains { $0.key == "Condition/cond-2" && $0.patientID == TestData.alice })
        #expect(data.resources.first { $0.type == "Organization" }?.patientID == nil)
    }

    @Test("numbers, member order and escapes come out as they went in")
    func verbatim() throws {
        let sandbox = try FHIRSandbox(bundles: [TestData.bundle])
        let observation = String(decoding: try #require(sandbox.resource(type: "Observation", id: "obs-1")), as: UTF8.self)
        #expect(observation.contains(#""valueQuantity":{"value":120.50,"unit":"cm""#))
        #expect(observation.hasPrefix(#"{"resourceType":"Observation","id":"obs-1","meta":{"versionId":"1","lastUpdated":"2026-01-01T00:00:00Z"},"status""#))
        let glucose = String(decoding: try #require(sandbox.resource(type: "Observation", id: "obs-2")), as: UTF8.self)
        #expect(glucose.contains(#""value":5.4e0"#))
        let condition = try #require(sandbox.resource(type: "Condition", id: "cond-2"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(condition)) as? [String: Any])
        #expect((object["code"] as? [String: Any])?["text"] as? String == "Hay fever été \"seasonal\"")
        // A meta that was there keeps its profile.
        let patient = String(decoding: try #require(sandbox.resource(type: "Patient", id: "alice")), as: UTF8.self)
        #expect(patient.contains(#""meta":{"profile":["http://hl7.org/fhir/us/core/StructureDefinition/us-core-patient"],"versionId":"1","lastUpdated":"2026-01-01T00:00:00Z"}"#))
    }

    @Test("NDJSON: one resource a line, Patient/ID references across files")
    func ndjson() throws {
        let patients = #"{"resourceType":"Patient","id":"p1"}"# + "\n" + #"{"resourceType":"Patient","id":"p2"}"# + "\r\n\n"
        let immunizations = #"{"resourceType":"Immunization","id":"i1","patient":{"reference":"Patient/p2"}}"# + "\n"
            + #"{"resourceType":"Immunization","id":"i2","patient":{"reference":"http://elsewhere/fhir/Patient/p1/_history/3"}}"#
        let folder = TemporaryDirectory("fhir-sandbox")
        try folder.file("export/Patient.000.ndjson", patients)
        try folder.file("export/Immunization.000.ndjson", immunizations)
        try folder.file("export/notes.txt", "not read")
        let data = try FHIRDataset(paths: [folder.path])
        #expect(data.patientIDs == ["p1", "p2"])
        #expect(data.count(patient: "p1") == 2 && data.count(patient: "p2") == 2)
        // The same bytes given as a document.
        #expect(try FHIRDataset(documents: [Array(immunizations.utf8)]).count == 2)
    }

    @Test("what cannot be read is refused with the file's name")
    func refusals() throws {
        let folder = TemporaryDirectory("fhir-sandbox")
        try folder.file("broken.json", #"{"resourceType":"Bundle","entry":["#)
        try folder.file("plain.json", #"{"name":"not FHIR"}"#)
        try folder.directory("empty")
        #expect(throws: FHIRDataset.LoadError.self) { try FHIRDataset(paths: [folder.file("broken.json")]) }
        #expect(throws: FHIRDataset.LoadError.notFHIR(source: folder.file("plain.json"))) { try FHIRDataset(paths: [folder.file("plain.json")]) }
        #expect(throws: FHIRDataset.LoadError.noFiles(path: folder.file("empty"))) { try FHIRDataset(paths: [folder.file("empty")]) }
        #expect(throws: FHIRDataset.LoadError.self) { try FHIRDataset(paths: [folder.file("absent.json")]) }
    }

    @Test("the shared samples load as one folder: every Patient a patient, the bulk export's references resolved",
          .enabled(if: SharedSamples.fhir.available, SharedSamples.fhir.skipReason))
    func sharedFolder() throws {
        let data = try FHIRDataset(paths: [SharedSamples.fhir.directory])
        // 13 in the bulk export, one in each of the three Synthea bundles and the C-CDA companion.
        #expect(data.patientIDs.count == 17)
        #expect(data.duplicatesSkipped == 0)
        let bulk = try FHIRDataset(paths: [SharedSamples.fhir.path("bulk-10-patients")])
        #expect(bulk.patientIDs.count == 13)
        let counts = bulk.typeCounts
        #expect(counts["Immunization"] == 161 && counts["AllergyIntolerance"] == 11 && counts["Device"] == 16)
        // Every resource of the export belongs to one of its patients.
        #expect(bulk.resources.allSatisfy { $0.patientID.map(bulk.patientIDs.contains) ?? false })
    }

    @Test("instants", arguments: [
        ("2026-01-01T00:00:00Z", Int64(1_767_225_600_000)),
        ("2026-01-01T01:00:00+01:00", 1_767_225_600_000),
        ("2025-12-31T19:00:00.250-05:00", 1_767_225_600_250),
        ("2026-01-01", 1_767_225_600_000),
        ("2026", 1_767_225_600_000),
        ("1969-12-31T23:59:59Z", -1000),
    ])
    func instants(text: String, milliseconds: Int64) {
        #expect(Instant.parse(text) == milliseconds)
    }

    @Test("malformed instants", arguments: ["2026-01-01T00:00:00 01:00", "2026-01-01T00:00:00", "2026-13-01", "yesterday", "2026-01-01T00:00:00Zjunk"])
    func badInstants(text: String) {
        #expect(Instant.parse(text) == nil)
    }

    @Test("instants are written in UTC, with milliseconds only when there are some")
    func formats() {
        #expect(Instant.format(milliseconds: 1_767_225_600_000) == "2026-01-01T00:00:00Z")
        #expect(Instant.format(milliseconds: 1_767_225_600_007) == "2026-01-01T00:00:00.007Z")
        #expect(Instant.format(milliseconds: 951_782_400_000) == "2000-02-29T00:00:00Z")
        #expect(Instant.format(milliseconds: -1000) == "1969-12-31T23:59:59Z")
    }

    @Test("fault specs", arguments: [
        ("500", FHIRSandbox.FaultSpec(fault: .status(500))),
        ("503@everything", FHIRSandbox.FaultSpec(fault: .status(503), target: .everything)),
        ("429=30@searchx3", FHIRSandbox.FaultSpec(fault: .tooManyRequests(retryAfter: 30), target: .search, count: 3)),
        ("delay=2.5@page", FHIRSandbox.FaultSpec(fault: .delay(seconds: 2.5), target: .page)),
        ("truncate@metadataalways", FHIRSandbox.FaultSpec(fault: .truncate, target: .metadata, count: nil)),
        ("expired-token", FHIRSandbox.FaultSpec(fault: .expiredToken)),
        ("expired-tokenx2", FHIRSandbox.FaultSpec(fault: .expiredToken, count: 2)),
        ("refuse-refresh@token,always", FHIRSandbox.FaultSpec(fault: .refuseRefresh, target: .token, count: nil)),
        ("outcome=503:Down for maintenance", FHIRSandbox.FaultSpec(fault: .operationOutcome(status: 503, text: "Down for maintenance"))),
    ])
    func faultSpecs(text: String, expected: FHIRSandbox.FaultSpec) throws {
        #expect(try FHIRSandbox.FaultSpec(parsing: text) == expected)
    }

    @Test("bad fault specs", arguments: ["", "boom", "500@nowhere", "429=30@search x3", "delay=soon", "outcome=abc"])
    func badFaultSpecs(text: String) {
        #expect(throws: FHIRSandbox.SpecError.self) { try FHIRSandbox.FaultSpec(parsing: text) }
    }

    @Test("PKCE's S256 challenge is RFC 7636's (appendix B)")
    func challenge() {
        #expect(PKCE.challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }
}
