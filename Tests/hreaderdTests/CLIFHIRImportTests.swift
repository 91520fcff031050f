import Foundation
import Testing
import TestSupport

/// `import-file` with FHIR files and folders, `reimport`, run as a user runs them.
@Suite("hreaderd import-file with FHIR, reimport")
struct CLIFHIRImportTests {
    let dir = TemporaryDirectory("hreaderd-fhir-cli")
    var binary: String { productsDirectory + "/hreaderd" }
    var environment: [String: String] { ["HREADERD_STATE_DIR": dir.file("state"), "HREADERD_PASSWORD_FILE": dir.file("pw")] }

    init() throws {
        try "fhir pw\n".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        let created = try run(binary, ["init"], environment: environment)
        #expect(created.status == 0, "\(created.err)")
    }

    func hreaderd(_ arguments: String...) throws -> (status: Int32, out: String, err: String) {
        try run(binary, arguments, environment: environment)
    }

    @Test("a Synthea bundle and the Bulk Data folder import with a report per patient; again, all unchanged",
          .enabled(if: SharedSamples.fhir.available, SharedSamples.fhir.skipReason))
    func samples() throws {
        let bundle = SharedSamples.fhir.path("synthea_infant_minimal_luigi_wiegand.json")
        let folder = SharedSamples.fhir.path("bulk-10-patients")
        let first = try hreaderd("import-file", bundle, folder)
        #expect(first.status == 0, "\(first.err)")
        #expect(first.out.contains("FHIR bundle, 61 resources"))
        #expect(first.out.contains("Luigi"))
        #expect(first.out.contains("kept, not shown: Claim 4, DiagnosticReport 1, ExplanationOfBenefit 4"))
        #expect(first.out.contains("Patient.000.ndjson: FHIR ndjson, 13 resources"))
        #expect(first.out.contains("patients 13 added"))
        let patients = try hreaderd("patients").out
        #expect(patients.split(separator: "\n").count == 1 + 14)
        let second = try hreaderd("import-file", bundle, folder)
        #expect(second.status == 0)
        #expect(second.out.contains("patients 0 added, 0 updated, 1 unchanged; entries 0 added, 0 updated, 53 unchanged, 0 removed"))
        #expect(second.out.contains("patients 0 added, 0 updated, 13 unchanged; entries 0 added, 0 updated, 188 unchanged, 0 removed"))
        let kept = try hreaderd("reimport", "--list")
        #expect(kept.out.split(separator: "\n").count == 5 + 5) // each import keeps its files
        let reimported = try hreaderd("reimport")
        #expect(reimported.status == 0, "\(reimported.err)")
        #expect(!reimported.out.contains(" added, 1 updated"))
        #expect(reimported.out.contains("53 unchanged"))
    }

    @Test("a bad file: a clear line, exit status 1, nothing imported or kept")
    func badFile() throws {
        let path = dir.file("bad.json")
        try #"{"resourceType":"Observation","id":"o","subject":{"reference":"Patient/x"},"effectiveDateTime":"soon"}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let result = try hreaderd("import-file", path)
        #expect(result.status == 1)
        #expect(result.out.contains("not imported: Observation/o: effectiveDateTime must be a FHIR date"))
        #expect(result.err.contains("could not be imported"))
        #expect(try hreaderd("patients").err.contains("no patients yet"))
        #expect(try hreaderd("reimport", "--list").out.isEmpty)
    }

    @Test("--patient puts a file of one person's resources with a chosen patient; an unknown id is refused")
    func chosenPatient() throws {
        let first = dir.file("a.json")
        try #"{"resourceType":"Patient","id":"p","name":[{"text":"Ann Example"}]}"#.write(toFile: first, atomically: true, encoding: .utf8)
        #expect(try hreaderd("import-file", first).status == 0)
        let id = try #require(try hreaderd("patients").out.split(separator: "\n").dropFirst().first?.split(separator: " ").first.map(String.init))
        let records = dir.file("clinical-records")
        try FileManager.default.createDirectory(atPath: records, withIntermediateDirectories: true)
        for n in 1...3 {
            try #"{"resourceType":"Immunization","id":"i\#(n)","patient":{"reference":"Patient/apple"},"vaccineCode":{"text":"Flu"},"occurrenceDateTime":"202\#(n)-10-01"}"#
                .write(toFile: records + "/Immunization-\(n).json", atomically: true, encoding: .utf8)
        }
        let result = try hreaderd("import-file", "--patient", id, records)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("immunizations 3 added"))
        #expect(try hreaderd("patients").out.contains("Ann Example"))
        #expect(try hreaderd("patients").out.split(separator: "\n").count == 2)
        let unknown = try hreaderd("import-file", "--patient", "p_nobody", records)
        #expect(unknown.status == 1)
        #expect(unknown.out.contains("no such") || unknown.out.contains("patient p_nobody"))
    }
}
