import FHIRSandbox
import Foundation
import TestSupport
import Testing

/// `hreaderd source add NAME --fhir …` and `--auth-code`, and `hreaderd sync`, as a person runs them,
/// against a FHIR sandbox in this process: the URL printed, followed as a browser would, the code typed
/// in, the record imported.
@Suite("FHIR sources: the CLI", .serialized, .enabled(if: SharedSamples.fhir.available, SharedSamples.fhir.skipReason))
struct FHIRSourceCommandTests {
    let dir = TemporaryDirectory("hreaderd-fhir-cli")
    var environment: [String: String] { ["HREADERD_STATE_DIR": dir.file("state"), "HREADERD_PASSWORD_FILE": dir.file("pw"), "TZ": "UTC"] }

    func hreaderd(_ arguments: String...) async throws -> (status: Int32, out: String, err: String) {
        let environment = environment
        return try await offPool { try run(productsDirectory + "/hreaderd", arguments, environment: environment) }
    }

    @Test("add begins the sign-in and prints the URL; the code typed in completes it; sync imports the record; list and remove")
    func addSignInSync() async throws {
        var configuration = FHIRSandbox.Configuration()
        configuration.autoApprove = true
        let sandbox = try FHIRSandbox(configuration: configuration, bundles: [try SharedSamples.fhir.bytes("synthea_child_daisey_johns.json")])
        _ = try await sandbox.start()
        defer { Task { await sandbox.shutdown() } }
        try "store password\n".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        #expect(try await hreaderd("init").status == 0)

        // Checked before anything is fetched.
        #expect(try await hreaderd("source", "add", "clinic", "--fhir", "ftp://x/fhir", "--client-id", "c").status != 0)
        #expect(try await hreaderd("source", "add", "clinic", "--fhir", sandbox.baseURL).status != 0)
        let lone = try await hreaderd("source", "add", "clinic", "--auth-code", "nothing-begun")
        #expect(lone.status == 1 && lone.err.contains("there is no sign-in for clinic waiting"))

        let added = try await hreaderd("source", "add", "clinic", "--fhir", sandbox.baseURL, "--client-id", "hreaderd-fhir",
                                       "--redirect-uri", "http://127.0.0.1:9/sources/callback")
        #expect(added.status == 0, "\(added.err)")
        let url = try #require(URL(string: added.out.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(url.absoluteString.hasPrefix(sandbox.authorizeURL))
        #expect(added.err.contains("open this address in your browser"))

        // The browser: the sandbox approves and redirects with the code.
        let authorize = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        let answer = try await HTTPTestClient(port: sandbox.port).get(authorize.percentEncodedPath + "?" + (authorize.percentEncodedQuery ?? ""))
        #expect(answer.status == 302)
        let redirect = try #require(answer.header("Location"))
        let code = try #require(URLComponents(string: redirect)?.queryItems?.first { $0.name == "code" }?.value)
        let completed = try await hreaderd("source", "add", "clinic", "--auth-code", code)
        #expect(completed.status == 0, "\(completed.err)")
        #expect(completed.out.contains("signed in to clinic"))

        let synced = try await hreaderd("sync", "clinic")
        #expect(synced.status == 0, "\(synced.err)")
        #expect(synced.out.contains("clinic: done"))
        let listed = try await hreaderd("source", "list")
        #expect(listed.out.contains("clinic  fhir  \(sandbox.baseURL)  ok"))
        #expect(listed.out.contains("1 patient"))
        for output in [added.out, added.err, completed.out, synced.out, synced.err, listed.out] {
            #expect(!output.contains(code))
        }
        let patients = try await hreaderd("patients")
        #expect(patients.out.contains("Daisey"))
        #expect(try await hreaderd("source", "remove", "clinic", "--delete-patients").status == 0)
    }
}
