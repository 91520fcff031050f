import Foundation
@testable import FHIRSandbox
import TestSupport
import Testing

@Suite("Discovery")
struct DiscoveryTests {
    @Test(".well-known/smart-configuration names the endpoints, PKCE S256 and the capabilities")
    func smartConfiguration() async throws {
        try await Harness.with { harness in
            let response = try await harness.http.get("/fhir/.well-known/smart-configuration")
            #expect(response.status == 200)
            let object = response.object
            #expect(object["authorization_endpoint"] as? String == harness.sandbox.origin + "/authorize")
            #expect(object["token_endpoint"] as? String == harness.sandbox.origin + "/token")
            #expect(object["code_challenge_methods_supported"] as? [String] == ["S256"])
            #expect(object["grant_types_supported"] as? [String] == ["authorization_code", "refresh_token"])
            let capabilities = try #require(object["capabilities"] as? [String])
            for capability in ["launch-standalone", "client-public", "client-confidential-symmetric", "context-standalone-patient",
                               "permission-offline", "permission-patient"] {
                #expect(capabilities.contains(capability))
            }
            #expect((object["scopes_supported"] as? [String])?.contains("patient/Observation.read") == true)
            #expect(harness.sandbox.stats.requests[.metadata] == 1)
        }
    }

    @Test("the CapabilityStatement carries the oauth-uris, the types with their search parameters, and $everything")
    func capabilityStatement() async throws {
        try await Harness.with { harness in
            let response = try await harness.http.get("/fhir/metadata")
            #expect(response.status == 200)
            #expect(response.header("Content-Type")?.hasPrefix("application/fhir+json") == true)
            let rest = try #require((response.object["rest"] as? [[String: Any]])?.first)
            let oauth = try #require(((rest["security"] as? [String: Any])?["extension"] as? [[String: Any]])?.first {
                $0["url"] as? String == "http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris"
            })
            let uris = Dictionary(uniqueKeysWithValues: ((oauth["extension"] as? [[String: Any]]) ?? []).map {
                ($0["url"] as? String ?? "", $0["valueUri"] as? String ?? "")
            })
            #expect(uris == ["authorize": harness.sandbox.origin + "/authorize", "token": harness.sandbox.origin + "/token"])
            let resources = try #require(rest["resource"] as? [[String: Any]])
            let types = resources.compactMap { $0["type"] as? String }
            #expect(types == ["Patient", "AllergyIntolerance", "Condition", "Encounter", "Immunization", "Medication", "MedicationRequest",
                              "Observation", "Organization"])
            let observation = try #require(resources.first { $0["type"] as? String == "Observation" })
            let parameters = ((observation["searchParam"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }
            #expect(Set(["patient", "_lastUpdated", "category"]).isSubset(of: Set(parameters)))
            let patient = try #require(resources.first { $0["type"] as? String == "Patient" })
            #expect(((patient["operation"] as? [[String: Any]])?.first)?["name"] as? String == "everything")
            #expect(((rest["operation"] as? [[String: Any]])?.first)?["name"] as? String == "everything")
        }
    }

    @Test("without a SMART configuration: 404, and the CapabilityStatement still says where to go")
    func capabilityStatementOnly() async throws {
        try await Harness.with({ $0.smartConfiguration = false }) { harness in
            let missing = try await harness.http.get("/fhir/.well-known/smart-configuration")
            #expect(missing.status == 404)
            let metadata = try await harness.http.get("/fhir/metadata")
            #expect(metadata.text.contains(#""url":"authorize","valueUri":"\#(harness.sandbox.origin)/authorize""#))
        }
    }

    @Test("without $everything: not listed, and asking for it is 404 with an OperationOutcome")
    func noEverything() async throws {
        try await Harness.with({ $0.offersEverything = false }) { harness in
            let metadata = try await harness.http.get("/fhir/metadata")
            #expect(!metadata.text.contains("everything"))
            let tokens = try await harness.signIn()
            let response = try await harness.get("/fhir/Patient/\(tokens.patient)/$everything", token: tokens.access)
            #expect(response.status == 404)
            #expect(response.diagnostics == "The operation $everything is not supported by this server.")
            // The type searches stay.
            let search = try await harness.get("/fhir/Observation?patient=\(tokens.patient)", token: tokens.access)
            #expect(search.status == 200 && search.object["total"] as? Int == 3)
        }
    }
}
