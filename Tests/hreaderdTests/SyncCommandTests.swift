import Foundation
import HealthRecord
import RHExSandbox
import TestSupport
import Testing

/// `hreaderd source …`, `hreaderd sync` and the daemon's import jobs, against an RHEx sandbox in this
/// process. Everything that blocks (running the binary, waiting for the daemon) runs on threads of its
/// own: the sandbox answers on the Swift concurrency pool, which must stay free.
@Suite("RHEx sources and syncs: the CLI and the daemon")
struct SyncCommandTests {
    let dir = TemporaryDirectory("hreaderd-sync-cli")
    var state: String { dir.file("state") }
    var environment: [String: String] { ["HREADERD_STATE_DIR": state, "HREADERD_PASSWORD_FILE": dir.file("pw"), "TZ": "UTC"] }

    static let clientSecret = "client secret \(UUID().uuidString)"
    static let userPassword = "user password \(UUID().uuidString)"

    var sandboxConfiguration: RHExSandbox.Configuration {
        var configuration = RHExSandbox.Configuration()
        configuration.clientSecret = Self.clientSecret
        configuration.users = ["family": Self.userPassword]
        return configuration
    }

    func hreaderd(_ arguments: [String]) async throws -> (status: Int32, out: String, err: String) {
        let environment = environment
        return try await offPool { try run(productsDirectory + "/hreaderd", arguments, environment: environment) }
    }

    func hreaderd(_ arguments: String...) async throws -> (status: Int32, out: String, err: String) {
        try await hreaderd(arguments)
    }

    /// A store with an API token and (unless told not to) a source `pds` pointing at `sandbox`.
    func prepare(_ sandbox: RHExSandbox?, addSource: Bool = true) async throws -> String {
        try "store password\n".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        try (Self.clientSecret + "\n").write(toFile: dir.file("client-secret"), atomically: true, encoding: .utf8)
        try (Self.userPassword + "\n").write(toFile: dir.file("user-password"), atomically: true, encoding: .utf8)
        #expect(try await hreaderd("init").status == 0)
        let token = try await hreaderd("token", "create").out.trimmingCharacters(in: .whitespacesAndNewlines)
        if addSource, let sandbox {
            let added = try await hreaderd("source", "add", "pds", "--url", sandbox.baseURL, "--client-id", "hreaderd",
                                           "--client-secret-file", dir.file("client-secret"), "--username", "family",
                                           "--user-password-file", dir.file("user-password"), "--patients", "all")
            #expect(added.status == 0, "\(added.err)")
        }
        return token
    }

    func startDaemon(_ arguments: [String] = []) async throws -> Daemon {
        let state = state
        let environment = environment
        return try await offPool { try Daemon(state: state, arguments: ["--sync-interval", "0"] + arguments, environment: environment) }
    }

    /// Runs `body` with a daemon serving the store, and stops it (off the pool) however `body` ends.
    func withDaemon(_ arguments: [String] = [], _ body: (Daemon) async throws -> Void) async throws {
        let daemon = try await startDaemon(arguments)
        do {
            try await body(daemon)
        } catch {
            _ = try? await offPool { daemon.stop() }
            throw error
        }
        let status = try await offPool { daemon.stop() }
        #expect(status == 0, "the daemon stops cleanly")
    }

    /// Runs `body` with a sandbox serving `records`, and stops it however `body` ends.
    func withSandbox(_ records: [SandboxRecord], _ body: (RHExSandbox) async throws -> Void) async throws {
        let sandbox = RHExSandbox(configuration: sandboxConfiguration, records: records)
        try await sandbox.start()
        do {
            try await body(sandbox)
        } catch {
            await sandbox.stop()
            throw error
        }
        await sandbox.stop()
    }

    static func small(_ count: Int) -> [SandboxRecord] {
        (1...count).map { SandboxRecord(id: String($0), bytes: Array(PatientRecord.record("r\($0)", name: "P\($0) Q").rhexJSON().utf8)) }
    }

    func get(_ daemon: Daemon, _ target: String, token: String) async throws -> HTTPTestClient.Response {
        try await daemon.client.get(target, headers: ["Authorization": "Bearer \(token)"])
    }

    /// Polls `/imports.json` until a job satisfies `condition`.
    func waitForJob(_ daemon: Daemon, token: String, timeout: Double = 30,
                    _ condition: ([String: Any]) -> Bool) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var last = ""
        while ContinuousClock.now < deadline {
            let response = try await get(daemon, "/imports.json", token: token)
            last = response.text
            if let job = (response.object["jobs"] as? [[String: Any]])?.first(where: condition) { return job }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw HTTPTestClient.Failure(description: "no job as expected within \(timeout) s; last /imports.json: \(last)")
    }

    // MARK: - The command line

    @Test("source add checks its options, keeps secrets out of its output, and list/remove manage the sources")
    func sourceCommands() async throws {
        try await withSandbox([]) { sandbox in
            _ = try await prepare(sandbox, addSource: false)
            let url = sandbox.baseURL
            let secret = dir.file("client-secret")
            let common = ["source", "add", "pds", "--url", url, "--client-id", "hreaderd", "--client-secret-file", secret]

            let neither = try await hreaderd(common)
            #expect(neither.status != 0 && neither.err.contains("sign in with either"))
            let both = try await hreaderd(common + ["--username", "u", "--user-password-file", secret, "--auth-code", "c", "--redirect-uri", "http://x/"])
            #expect(both.status != 0)
            let badURL = try await hreaderd(["source", "add", "pds", "--url", "https://u:p@pds.example.org/", "--client-id", "c",
                                             "--client-secret-file", secret, "--auth-code", "c", "--redirect-uri", "http://x/"])
            #expect(badURL.status != 0 && badURL.err.contains("must not hold a user or password"))
            let missingFile = try await hreaderd(common + ["--username", "family", "--user-password-file", dir.file("nope")])
            #expect(missingFile.status == 1 && missingFile.err.hasPrefix("hreaderd: the user password file"))

            let password = ["--username", "family", "--user-password-file", dir.file("user-password")]
            let added = try await hreaderd(common + password)
            #expect(added.status == 0)
            #expect(added.out.contains("added source pds"))
            let again = try await hreaderd(common + password)
            #expect(again.status == 1 && again.err.contains("pass --update"))
            let updated = try await hreaderd(common + password + ["--update"])
            #expect(updated.status == 0 && updated.out.contains("updated source pds"))

            let listed = try await hreaderd("source", "list")
            #expect(listed.status == 0)
            #expect(listed.out.contains("pds  rhex  \(url)  ok  last sync never  0 patients"))
            for output in [added.out, added.err, listed.out, listed.err] {
                #expect(!output.contains(Self.clientSecret) && !output.contains(Self.userPassword))
            }
            let removed = try await hreaderd("source", "remove", "pds")
            #expect(removed.status == 0 && removed.out == "removed source pds\n")
            #expect(try await hreaderd("source", "remove", "pds").err.contains("there is no source named pds"))
            #expect(try await hreaderd("source", "remove", "files").status == 1)
            #expect(try await hreaderd("sync").err.contains("there is no RHEx or FHIR source yet"))
            #expect(try await hreaderd("sync", "nope").err == "hreaderd: there is no RHEx or FHIR source named nope\n")
        }
    }

    @Test("hreaderd sync imports the 500-patient sample, then nothing new; a source with patients is removed only with them",
          .enabled(if: SharedSamples.available, SharedSamples.skipReason))
    func syncCommand() async throws {
        try await withSandbox(try SandboxRecord.load(ndjson: SharedSamples.path("pds_records_500.ndjson"))) { sandbox in
            _ = try await prepare(sandbox)
            let first = try await hreaderd("sync")
            #expect(first.status == 0, "\(first.err)")
            #expect(first.out.hasPrefix("pds: done"))
            #expect(first.out.contains("500 patients: 500 added, 0 updated, 0 unchanged, 0 not modified, 0 failed"))
            #expect(first.err.contains("pds: 500 of 500 patients"), "progress goes to stderr")
            let second = try await hreaderd("sync", "pds", "--wait")
            #expect(second.status == 0)
            #expect(second.out.contains("500 patients: 0 added, 0 updated, 0 unchanged, 500 not modified, 0 failed"))
            #expect(sandbox.stats.recordsServed.values.reduce(0, +) == 500)
            let listed = try await hreaderd("source", "list")
            #expect(listed.out.contains("500 patients") && !listed.out.contains("last sync never"))
            let refused = try await hreaderd("source", "remove", "pds")
            #expect(refused.status == 1 && refused.err.contains("holds 500 patients") && refused.err.contains("--delete-patients"))
            let removed = try await hreaderd("source", "remove", "pds", "--delete-patients")
            #expect(removed.out == "removed source pds and its 500 patients\n")
        }
    }

    @Test("a sync that needs sign-in says so, on stdout and in the exit status")
    func syncNeedsSignIn() async throws {
        try await withSandbox(Self.small(1)) { sandbox in
            _ = try await prepare(sandbox)
            sandbox.inject(.invalidGrant, on: .token, times: nil)
            let result = try await hreaderd("sync")
            #expect(result.status == 1)
            #expect(result.out.contains("pds: needs sign-in: the server refused the password grant (invalid_grant)"))
            #expect(result.out.contains("hreaderd source add pds --update"))
            #expect(result.err.hasSuffix("hreaderd: 1 of 1 sync did not complete (see above)\n"))
            #expect(try await hreaderd("source", "list").out.contains("needs_sign_in"))
        }
    }

    // MARK: - The daemon

    @Test("/imports.json and POST /imports: a sync started over HTTP, invalid_grant shown as needs_sign_in, never a secret")
    func importsRoutes() async throws {
        try await withSandbox(Self.small(5)) { sandbox in
            let token = try await prepare(sandbox)
            try await withDaemon { daemon in
                let client = daemon.client
                let auth = ["Authorization": "Bearer \(token)"]
                #expect(try await client.get("/imports.json").status == 401)
                let unknown = try await client.post("/imports", json: #"{"source": "nope"}"#, headers: auth)
                #expect(unknown.status == 404 && unknown.errorCode == "unknown_source")
                let started = try await client.post("/imports", json: #"{"source": "pds"}"#, headers: auth)
                #expect(started.status == 202)
                let job = try #require((started.object["jobs"] as? [[String: Any]])?.first)
                #expect(job["source"] as? String == "pds" && job["trigger"] as? String == "request")
                let done = try await waitForJob(daemon, token: token) { $0["state"] as? String == "done" }
                #expect(done["progress_done"] as? Int == 5 && done["progress_total"] as? Int == 5)
                #expect((done["patients"] as? [String: Int])?["added"] == 5)

                sandbox.expireAccessTokens()
                sandbox.revokeRefreshTokens()
                sandbox.inject(.invalidGrant, on: .token, times: nil)
                let all = try await client.send("POST", "/imports", headers: auth)
                #expect(all.status == 202)
                let refused = try await waitForJob(daemon, token: token) { $0["state"] as? String == "needs_sign_in" }
                #expect((refused["last_error"] as? String)?.contains("invalid_grant") == true)
                #expect(refused["attempts"] as? Int == 1)
                let imports = try await get(daemon, "/imports.json", token: token)
                let sources = try #require(imports.object["sources"] as? [[String: Any]])
                let pds = try #require(sources.first { $0["name"] as? String == "pds" })
                #expect(pds["state"] as? String == "needs_sign_in" && pds["signed_in"] as? Bool == false)
                #expect(sources.contains { $0["kind"] as? String == "file" })
                // Tokens are JSON strings beginning "at_" / "rt_" (a key such as import_all merely contains rt_).
                for secret in [Self.clientSecret, Self.userPassword, "\"at_", "\"rt_", "client_secret", "password\""] {
                    #expect(!imports.text.contains(secret), "/imports.json shows \(secret)")
                }
                #expect(!daemon.output.contains(Self.clientSecret) && !daemon.output.contains(Self.userPassword))
            }
        }
    }

    @Test("a hanging RHEx server: the request times out and is retried while the daemon keeps answering")
    func hangingServer() async throws {
        try await withSandbox(Self.small(3)) { sandbox in
            let token = try await prepare(sandbox)
            sandbox.inject(.delay(seconds: 60), on: .feed, times: 1)
            try await withDaemon(["--sync-timeout", "2", "--sync-retry-base", "0.1"]) { daemon in
                #expect(try await daemon.client.post("/imports", json: "{}", headers: ["Authorization": "Bearer \(token)"]).status == 202)
                // The feed request hangs; everything else answers meanwhile.
                let running = try await waitForJob(daemon, token: token) { $0["state"] as? String == "running" }
                #expect(running["progress_total"] is NSNull)
                #expect(try await daemon.client.get("/healthz").status == 200)
                #expect(try await get(daemon, "/patients.json", token: token).status == 200)
                let done = try await waitForJob(daemon, token: token) { $0["state"] as? String == "done" }
                #expect((done["patients"] as? [String: Int])?["added"] == 3)
                #expect(sandbox.stats.feedRequests == 2, "the hanging request was given up and sent again")
            }
        }
    }

    @Test("the daemon killed with SIGKILL mid-sync: after a restart the job completes, each patient stored once, earlier data intact",
          .enabled(if: SharedSamples.available, SharedSamples.skipReason))
    func killedMidSync() async throws {
        try await withSandbox(try SandboxRecord.load(ndjson: SharedSamples.path("pds_records_500.ndjson"))) { sandbox in
            let token = try await prepare(sandbox)
            #expect(try await hreaderd("import-file", SharedSamples.path("hreader_hs_henry_smith.json")).status == 0)
            // Slow enough that the kill lands in the middle.
            sandbox.inject(.delay(seconds: 0.01), on: .records, times: nil)
            let first = try await startDaemon()
            let partway: [String: Any]
            do {
                #expect(try await first.client.post("/imports", json: #"{"source":"pds"}"#, headers: ["Authorization": "Bearer \(token)"]).status == 202)
                partway = try await waitForJob(first, token: token) { ($0["progress_done"] as? Int ?? 0) >= 100 && $0["state"] as? String == "running" }
            } catch {
                _ = try? await offPool { first.stop() }
                throw error
            }
            kill(first.process.processIdentifier, SIGKILL)
            try await offPool { first.process.waitUntilExit() }
            #expect(first.process.terminationReason == .uncaughtSignal)
            #expect(sandbox.stats.recordsServed.values.reduce(0, +) < 500)

            try await withDaemon { second in
                let id = partway["id"] as? Int
                let done = try await waitForJob(second, token: token) { $0["id"] as? Int == id && $0["state"] as? String == "done" }
                #expect(done["attempts"] as? Int == 2)
                let patients = try #require(done["patients"] as? [String: Int])
                #expect(patients["added", default: 0] + patients["not_modified", default: 0] == 500)
                #expect(patients["not_modified", default: 0] >= 90, "what was stored before the kill is not downloaded again")
                #expect(sandbox.stats.recordsServed.values.reduce(0, +) <= 500 + 8)

                let listing = try await get(second, "/patients.json", token: token)
                let all = try #require(listing.object["patients"] as? [[String: Any]])
                #expect(all.count == 501)
                #expect(all.filter { $0["source"] as? String == "pds" }.count == 500)
                #expect(Set(all.compactMap { $0["id"] as? String }).count == 501)
                let henry = try #require(all.first { $0["name"] as? String == "Henry Smith" })
                #expect(henry["source"] as? String == "files" && henry["entries"] as? Int == 138)
            }
        }
    }

    @Test("hreaderd sync beside a serving daemon: both use the store, the daemon shows the job")
    func syncBesideDaemon() async throws {
        try await withSandbox(Self.small(20)) { sandbox in
            let token = try await prepare(sandbox)
            try await withDaemon { daemon in
                let reads = Task {
                    var ok = 0
                    for _ in 0..<20 where try await get(daemon, "/patients.json", token: token).status == 200 { ok += 1 }
                    return ok
                }
                let result = try await hreaderd("sync", "pds")
                #expect(result.status == 0, "\(result.err)")
                #expect(result.out.contains("20 added"))
                #expect(try await reads.value == 20)
                let job = try await waitForJob(daemon, token: token) { $0["state"] as? String == "done" }
                #expect(job["trigger"] as? String == "command")
                let patients = try await get(daemon, "/patients.json", token: token).object["patients"] as? [Any]
                #expect(patients?.count == 20)
            }
        }
    }
}

/// Runs blocking work on a thread of its own, off the Swift concurrency pool.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
