import Foundation
@testable import FHIRSandbox
import TestSupport
import Testing

@Suite("The FHIR API")
struct APITests {
    @Test("Patient/{id}: the Patient, as application/fhir+json, with its meta")
    func readPatient() async throws {
        try await Harness.with { harness in
            let tokens = try await harness.signIn()
            let response = try await harness.get("/fhir/Patient/alice", token: tokens.access)
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/fhir+json; charset=utf-8")
            let meta = try #require(response.object["meta"] as? [String: Any])
            #expect(meta["versionId"] as? String == "1" && meta["lastUpdated"] as? String == "2026-01-01T00:00:00Z")
            #expect(try await harness.get("/fhir/Medication/med-1", token: tokens.access).status == 200)
            #expect(try await harness.get("/fhir/Observation/nothing", token: tokens.access).status == 404)
            #expect(harness.sandbox.stats.requests[.read] == 3)
            #expect(harness.sandbox.stats.missingAccept == 0)
        }
    }

    @Test("$everything: pages that add up to every resource of the patient exactly once, and the Medications they name")
    func everything() async throws {
        try await Harness.with { harness in
            let tokens = try await harness.signIn()
            let pages = try await harness.allPages("/fhir/Patient/alice/$everything?_count=3", token: tokens.access)
            let expected = harness.sandbox.resourceKeys(patient: TestData.alice).map { harness.sandbox.baseURL + "/" + $0 }
                + [harness.sandbox.baseURL + "/Medication/med-1"]
            #expect(pages.fullUrls == expected)
            #expect(Set(pages.fullUrls).count == TestData.aliceResources + 1)
            #expect(pages.total == TestData.aliceResources + 1)
            #expect(pages.pages == 4)
            let modes = pages.entries.map { ($0["search"] as? [String: Any])?["mode"] as? String }
            #expect(modes.filter { $0 == "include" }.count == 1)
            #expect(harness.sandbox.stats.requests[.everything] == 1 && harness.sandbox.stats.requests[.page] == 3)
            #expect(harness.sandbox.stats.pagesServed == 4 && harness.sandbox.stats.resourcesServed == 10)

            // The default page size, and _type.
            harness.sandbox.resetStats()
            let whole = try await harness.allPages("/fhir/Patient/alice/$everything", token: tokens.access)
            #expect(whole.pages == 1 && whole.entries.count == 10)
            let observations = try await harness.allPages("/fhir/Patient/alice/$everything?_type=Observation,Condition", token: tokens.access)
            #expect(observations.entries.count == 5)
        }
    }

    @Test("_since: only what changed after it, the Patient too only when it changed")
    func since() async throws {
        try await Harness.with { harness in
            let tokens = try await harness.signIn()
            harness.sandbox.setNow(1_770_000_000) // 2026-02-02T02:40:00Z
            let sync = try await harness.get("/fhir/Patient/alice/$everything", token: tokens.access)
            harness.sandbox.advanceClock(by: 60)
            try harness.sandbox.update(resourceType: "Observation", id: "obs-2", json: Array("""
                {"resourceType":"Observation","status":"amended","code":{"text":"Glucose"},"subject":{"reference":"Patient/alice"}}
                """.utf8))
            try harness.sandbox.touch(resourceType: "Condition", id: "cond-1")
            let before = try #require((sync.object["meta"] as? [String: Any])?["lastUpdated"] as? String)
            let changed = try await harness.allPages("/fhir/Patient/alice/$everything?_since=\(before)", token: tokens.access)
            #expect(changed.fullUrls == ["Observation/obs-2", "Condition/cond-1"].map { harness.sandbox.baseURL + "/" + $0 })
            let observation = try #require(changed.entries.first?["resource"] as? [String: Any])
            #expect(observation["status"] as? String == "amended")
            #expect((observation["meta"] as? [String: Any])?["versionId"] as? String == "2")
            #expect((observation["meta"] as? [String: Any])?["lastUpdated"] as? String == "2026-02-02T02:41:00Z")
            #expect(before == "2026-02-02T02:40:00Z")
            // Nothing changed since the change.
            let nothing = try await harness.allPages("/fhir/Patient/alice/$everything?_since=2026-02-02T02:41:00.001Z", token: tokens.access)
            #expect(nothing.entries.isEmpty && nothing.total == 0)
            // The Patient, when it changes; an offset written with %2B.
            try harness.sandbox.touch(resourceType: "Patient", id: "alice")
            let patient = try await harness.allPages("/fhir/Patient/alice/$everything?_since=2026-02-02T03:41:00%2B01:00", token: tokens.access)
            #expect(patient.entries.count == 3 && patient.fullUrls.first == harness.sandbox.baseURL + "/Patient/alice")
            #expect(harness.sandbox.stats.sinceValues == [before, "2026-02-02T02:41:00.001Z", "2026-02-02T03:41:00+01:00"])
            // A + sent unencoded arrives as a space: refused.
            let unencoded = try await harness.get("/fhir/Patient/alice/$everything?_since=2026-02-02T03:41:00+01:00", token: tokens.access)
            #expect(unencoded.status == 400 && unencoded.diagnostics?.contains("%2B") == true)
        }
    }

    @Test("_lastUpdated on a type search: gt, ge, lt, a day")
    func lastUpdated() async throws {
        try await Harness.with { harness in
            let tokens = try await harness.signIn()
            harness.sandbox.setNow(1_770_000_000)
            try harness.sandbox.touch(resourceType: "Observation", id: "obs-3")
            let search = { (query: String) async throws -> [String] in
                try await harness.allPages("/fhir/Observation?patient=alice&" + query, token: tokens.access).entries.compactMap {
                    ($0["resource"] as? [String: Any])?["id"] as? String
                }
            }
            #expect(try await search("_lastUpdated=gt2026-01-01T00:00:00Z") == ["obs-3"])
            #expect(try await search("_lastUpdated=ge2026-01-01T00:00:00Z") == ["obs-1", "obs-2", "obs-3"])
            #expect(try await search("_lastUpdated=lt2026-02-01") == ["obs-1", "obs-2"])
            #expect(try await search("_lastUpdated=2026-02-02") == ["obs-3"])
            #expect(try await search("_lastUpdated=ge2026-01-01&_lastUpdated=lt2026-01-02") == ["obs-1", "obs-2"])
            #expect(harness.sandbox.stats.lastUpdatedValues.first == "gt2026-01-01T00:00:00Z")
            #expect(harness.sandbox.stats.lastUpdatedValues.count == 6)
            let bad = try await harness.get("/fhir/Observation?patient=alice&_lastUpdated=after-lunch", token: tokens.access)
            #expect(bad.status == 400)
        }
    }

    @Test("searches: category, code, _id, _include, the compartment form, paging")
    func searches() async throws {
        try await Harness.with { harness in
            let tokens = try await harness.signIn()
            let ids = { (target: String) async throws -> [String] in
                try await harness.allPages(target, token: tokens.access).entries.compactMap {
                    ($0["resource"] as? [String: Any])?["id"] as? String
                }
            }
            #expect(try await ids("/fhir/Observation?patient=alice&category=vital-signs") == ["obs-1", "obs-3"])
            #expect(try await ids("/fhir/Observation?patient=Patient/alice&category=http://terminology.hl7.org/CodeSystem/observation-category|laboratory") == ["obs-2"])
            #expect(try await ids("/fhir/Observation?subject=Patient/alice&code=http://loinc.org|8302-2,http://loinc.org|29463-7") == ["obs-1", "obs-3"])
            #expect(try await ids("/fhir/AllergyIntolerance?patient=alice&category=food") == ["ai-1"])
            #expect(try await ids("/fhir/AllergyIntolerance?patient=alice&category=medication") == [])
            #expect(try await ids("/fhir/Condition?patient=alice&_id=cond-2") == ["cond-2"])
            #expect(try await ids("/fhir/Goal?patient=alice") == [])
            #expect(try await ids("/fhir/MedicationRequest?patient=alice&_include=MedicationRequest:medication") == ["mr-1", "med-1"])
            #expect(try await ids("/fhir/Medication?_id=med-1") == ["med-1"])
            #expect(try await ids("/fhir/Patient?_id=alice") == ["alice"])
            #expect(try await ids("/fhir/Patient/alice/Condition") == ["cond-1", "cond-2"])

            let paged = try await harness.allPages("/fhir/Observation?patient=alice&_count=2", token: tokens.access)
            #expect(paged.pages == 2 && paged.total == 3 && paged.entries.count == 3)
            let first = try await harness.get("/fhir/Observation?patient=alice&_count=2", token: tokens.access)
            let links = (first.object["link"] as? [[String: Any]]) ?? []
            #expect(links.first?["url"] as? String == harness.sandbox.baseURL + "/Observation?patient=alice&_count=2")
            #expect((links.last?["url"] as? String)?.hasPrefix(harness.sandbox.baseURL + "/_page?id=") == true)
            let empty = try await harness.get("/fhir/Observation?patient=alice&_count=0", token: tokens.access)
            #expect(empty.object["total"] as? Int == 3 && empty.object["entry"] == nil)
            #expect((empty.object["link"] as? [[String: Any]])?.count == 1)

            let unbounded = try await harness.get("/fhir/Observation", token: tokens.access)
            #expect(unbounded.status == 400 && unbounded.object["resourceType"] as? String == "OperationOutcome")
            #expect(try await harness.get("/fhir/_page?id=s_gone&_offset=2", token: tokens.access).status == 410)
        }
    }

    @Test("another patient's resources are 403", arguments: [
        "/fhir/Patient/bob", "/fhir/Patient/bob/$everything", "/fhir/Observation?patient=bob", "/fhir/Observation/obs-b1",
        "/fhir/Patient/bob/Observation",
    ])
    func otherPatient(target: String) async throws {
        try await Harness.with { harness in
            let tokens = try await harness.signIn()
            let response = try await harness.get(target, token: tokens.access)
            #expect(response.status == 403)
            #expect(response.object["resourceType"] as? String == "OperationOutcome")
            #expect(harness.sandbox.stats.forbidden == 1)
        }
    }

    @Test("another patient's next page is 403")
    func otherPatientsPage() async throws {
        try await Harness.with({ $0.autoApprove = false }) { harness in
            let bob = try await harness.signInOnPage(patient: TestData.bob)
            let alice = try await harness.signInOnPage(patient: TestData.alice)
            let first = try await harness.get("/fhir/Patient/bob/$everything?_count=1", token: bob.access)
            let links = (first.object["link"] as? [[String: Any]]) ?? []
            let next = try #require(links.first { $0["relation"] as? String == "next" }?["url"] as? String)
            #expect(try await harness.get(next, token: alice.access).status == 403)
            #expect(try await harness.get(next, token: bob.access).status == 200)
        }
    }

    @Test("no token, an unknown one, an expired one, one in the URL: 401 with WWW-Authenticate: Bearer")
    func unauthorized() async throws {
        try await Harness.with { harness in
            let none = try await harness.get("/fhir/Patient/alice", token: nil)
            #expect(none.status == 401)
            #expect(none.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(none.object["resourceType"] as? String == "OperationOutcome")
            let unknown = try await harness.get("/fhir/Observation?patient=alice", token: "at_nothing")
            #expect(unknown.status == 401 && unknown.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)

            let tokens = try await harness.signIn()
            let inURL = try await harness.get("/fhir/Patient/alice?access_token=\(tokens.access)", token: nil)
            #expect(inURL.status == 401)
            #expect(harness.sandbox.stats.tokensInURL == 1)

            harness.sandbox.advanceClock(by: 3601)
            #expect(try await harness.get("/fhir/Patient/alice", token: tokens.access).status == 401)
            #expect(harness.sandbox.stats.unauthorized == 4)
        }
    }

    @Test("a narrow scope covers its types only")
    func scopes() async throws {
        try await Harness.with { harness in
            let tokens = try await harness.signIn(scope: "launch/patient patient/Patient.read patient/Observation.rs")
            #expect(try await harness.get("/fhir/Observation?patient=alice", token: tokens.access).status == 200)
            #expect(try await harness.get("/fhir/Condition?patient=alice", token: tokens.access).status == 403)
            let everything = try await harness.allPages("/fhir/Patient/alice/$everything", token: tokens.access)
            #expect(everything.entries.count == 4)
        }
    }

    @Test("update and touch: a new version, stamped with the sandbox clock; a new resource joins its patient")
    func updates() async throws {
        try await Harness.with { harness in
            harness.sandbox.setNow(1_767_312_000) // 2026-01-02
            try harness.sandbox.update(resourceType: "Observation", id: "obs-new", json: Array("""
                {"resourceType":"Observation","status":"final","code":{"text":"Temperature"},"subject":{"reference":"Patient/alice"}}
                """.utf8))
            #expect(harness.sandbox.resourceKeys(patient: TestData.alice).last == "Observation/obs-new")
            #expect(throws: FHIRSandbox.UpdateError.self) {
                try harness.sandbox.update(resourceType: "Condition", id: "x", json: Array(#"{"resourceType":"Observation"}"#.utf8))
            }
            #expect(throws: FHIRSandbox.UpdateError.notFound("Condition/none")) {
                try harness.sandbox.touch(resourceType: "Condition", id: "none")
            }
            let tokens = try await harness.signIn()
            let changed = try await harness.allPages("/fhir/Observation?patient=alice&_lastUpdated=gt2026-01-01T00:00:00Z", token: tokens.access)
            #expect(changed.fullUrls == [harness.sandbox.baseURL + "/Observation/obs-new"])
        }
    }
}
