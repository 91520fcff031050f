import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM while a sync is downloading: the sync stops between patients, the daemon exits 0 within the
/// stop timeout, and what was stored is whole.
@Suite("SIGTERM during a sync", .serialized, .enabled(if: SharedSamples.available, SharedSamples.skipReason))
struct SyncShutdownTests {
    let dir = TemporaryDirectory("hreaderd-sync-stop")

    @Test("a daemon stopped in the middle of a sync exits 0, with whole patients and a resumable job")
    func sigtermDuringSync() throws {
        let state = dir.file("state")
        try "sync pw\n".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        try "sandbox-client-secret\n".write(toFile: dir.file("secret"), atomically: true, encoding: .utf8)
        try "sandbox-password\n".write(toFile: dir.file("userpw"), atomically: true, encoding: .utf8)
        let env = ["HREADERD_STATE_DIR": state, "HREADERD_PASSWORD_FILE": dir.file("pw")]
        let hreaderd = productsDirectory + "/hreaderd"
        #expect(try run(hreaderd, ["init"], environment: env).status == 0)

        // The sandbox serves the 500-patient sample, each record 50 ms late, so the sync takes seconds.
        let port = SystemdTests.freePort()
        let sandbox = Process()
        sandbox.executableURL = URL(fileURLWithPath: productsDirectory + "/rhex-sandbox")
        sandbox.arguments = ["--listen", "127.0.0.1:\(port)", "--records", SharedSamples.path("pds_records_500.ndjson"),
                             "--fault", "delay=0.05@records,always"]
        sandbox.standardOutput = FileHandle.nullDevice
        sandbox.standardError = FileHandle.nullDevice
        try sandbox.run()
        defer { kill(sandbox.processIdentifier, SIGKILL); sandbox.waitUntilExit() }
        let sandboxClient = HTTPTestClient(port: port)
        for _ in 0..<200 where (try? sandboxClient.get("/oauth2/token"))?.status == nil { usleep(50_000) }

        let added = try run(hreaderd, ["source", "add", "sandbox", "--url", "http://127.0.0.1:\(port)/", "--client-id", "hreaderd",
                                       "--client-secret-file", dir.file("secret"), "--username", "family",
                                       "--user-password-file", dir.file("userpw"), "--patients", "all"], environment: env)
        #expect(added.status == 0, "\(added.err)")
        let token = try run(hreaderd, ["token", "create"], environment: env).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let auth = ["Authorization": "Bearer \(token)"]

        let daemon = try Daemon(state: state, environment: ["HREADERD_PASSWORD_FILE": dir.file("pw")])
        let started = try daemon.client.request("POST", "/imports", headers: auth.merging(["Content-Type": "application/json"]) { a, _ in a },
                                                body: Array("{}".utf8))
        #expect(started.status == 202, "\(started.text)")
        // Wait until some patients are in, but far from all.
        var done = 0
        for _ in 0..<400 {
            let jobs = (try? daemon.client.get("/imports.json", headers: auth))?.object["jobs"] as? [[String: Any]] ?? []
            done = jobs.compactMap { ($0["progress_done"] as? NSNumber)?.intValue }.max() ?? 0
            if done >= 20 { break }
            usleep(50_000)
        }
        #expect(done >= 20, "the sync did not make progress")
        let status = daemon.stop() // SIGTERM; SIGKILL only after 15 s
        #expect(status == 0, "exit status \(status): \(daemon.output.suffix(2000))")
        #expect(daemon.output.contains("stopped"))

        // Every stored patient is whole (one transaction each), and the job can be resumed.
        let check = try run(productsDirectory + "/hreaderd-storecheck", [state, "sync pw"], environment: env)
        let patients = try run(hreaderd, ["patients"], environment: env).out.split(separator: "\n").dropFirst().count
        print("patients stored when SIGTERM stopped the sync: \(patients) of 500")
        #expect(patients > 0 && patients < 500)
        #expect(check.status == 0, "\(check.err)")
        #expect(check.out.contains("integrity ok"))
        for line in check.out.split(separator: "\n") where line.hasPrefix("patient ") {
            let fields = line.split(separator: " ")
            #expect(fields.count >= 5 && fields[3] == fields[4], "a patient stored in part: \(line)")
        }
        let resumed = try Daemon(state: state, environment: ["HREADERD_PASSWORD_FILE": dir.file("pw")])
        defer { resumed.stop() }
        var finished = false
        for _ in 0..<600 where !finished {
            let jobs = (try? resumed.client.get("/imports.json", headers: auth))?.object["jobs"] as? [[String: Any]] ?? []
            finished = jobs.contains { ($0["state"] as? String) == "done" && ($0["progress_done"] as? NSNumber)?.intValue == 500 }
            if !finished { usleep(100_000) }
        }
        #expect(finished, "the interrupted sync completes after a restart")
        let after = try resumed.client.get("/patients.json", headers: auth).object["patients"] as? [Any]
        #expect(after?.count == 500, "every patient stored exactly once")
    }
}
