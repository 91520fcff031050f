import Records
import HealthRecord
import Testing

/// Bad input gets a clear message, and a patient with a bad resource is refused whole while the other
/// patients of the same file are read.
@Suite("FHIR bad input")
struct FHIRBadInputTests {
    func failure(_ text: String) -> FHIRError? {
        do {
            _ = try FHIRReader().read(Array(text.utf8), name: "bad.json")
            return nil
        } catch {
            return error
        }
    }

    @Test("not JSON, truncated JSON, an array, an object without resourceType, an empty file")
    func notFHIR() {
        #expect(failure("hello")?.description.contains("not JSON at byte 0") == true)
        #expect(failure(#"{"resourceType":"Bundle","entry":[{"resource":{"resourceType":"Patient""#)?.description.contains("not JSON") == true)
        #expect(failure(#"[{"resourceType":"Patient"}]"#) == .notFHIR("the top level is not an object (expected a resource, a Bundle or NDJSON)"))
        #expect(failure(#"{"_id":"x"}"#) == .notFHIR("the object has no resourceType"))
        #expect(failure("") != nil)
    }

    @Test("10,000 levels of nesting are refused by the depth limit, not the stack")
    func deep() {
        let text = #"{"resourceType":"Bundle","entry":"# + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}"
        guard case .notJSON(.tooDeep)? = failure(text) else {
            Issue.record("expected tooDeep, got \(String(describing: failure(text)))")
            return
        }
    }

    @Test("a file over the size limit is refused before it is read")
    func tooLarge() {
        var limits = FHIRLimits()
        limits.maxFileBytes = 100
        let text = Array(#"{"resourceType":"Patient","id":"p","name":[{"text":"\#(String(repeating: "a", count: 200))"}]}"#.utf8)
        #expect(throws: FHIRError.notJSON(.tooLarge(bytes: text.count, maxBytes: 100))) {
            try FHIRReader(limits: limits).read(text, name: "big.json")
        }
    }

    @Test("a wrong type in a mapped field refuses that patient, with the resource and path; the other patient imports")
    func wrongTypes() throws {
        let text = """
            {"resourceType":"Patient","id":"a"}
            {"resourceType":"Patient","id":"b"}
            {"resourceType":"Observation","id":"o1","subject":{"reference":"Patient/a"},"effectiveDateTime":12}
            {"resourceType":"Observation","id":"o2","subject":{"reference":"Patient/b"},"effectiveDateTime":"2020-01-01","valueQuantity":{"value":5}}
            """
        let result = try FHIRReader().read(Array(text.utf8), name: "two.ndjson")
        let a = try #require(result.patients.first { $0.reference == "Patient/a" })
        let b = try #require(result.patients.first { $0.reference == "Patient/b" })
        #expect(a.record == nil)
        #expect(a.error == "Observation/o1: effectiveDateTime must be a string")
        #expect(b.error == nil && b.record?.entries.count == 1)
    }

    @Test("a date that is not a FHIR date refuses the patient with the value quoted")
    func badDate() throws {
        let text = #"{"resourceType":"Condition","id":"c","subject":{"reference":"Patient/x"},"onsetDateTime":"yesterday"}"#
        let result = try FHIRReader().read(Array(text.utf8), name: "c.json")
        #expect(result.patients[0].error?.contains("\"yesterday\"") == true)
    }

    @Test("an unknown resource type is kept, not shown; a reference to a missing Medication keeps its display")
    func unknownAndMissing() throws {
        let text = """
            {"resourceType":"Patient","id":"a"}
            {"resourceType":"Frobnication","id":"f","subject":{"reference":"Patient/a"}}
            {"resourceType":"MedicationStatement","id":"m","subject":{"reference":"Patient/a"},"medicationReference":{"reference":"Medication/gone","display":"Aspirin"},"status":"active"}
            """
        let result = try FHIRReader().read(Array(text.utf8), name: "x.ndjson")
        let patient = try #require(result.patients.first)
        #expect(patient.kept == ["Frobnication": 1])
        #expect(patient.record?.entries.first?.description == "Aspirin")
    }

    @Test("an empty bundle has no patients and no resources")
    func emptyBundle() throws {
        let result = try FHIRReader().read(Array(#"{"resourceType":"Bundle","type":"collection","entry":[]}"#.utf8), name: "e.json")
        #expect(result.patients.isEmpty && result.resourceCount == 0)
    }
}
