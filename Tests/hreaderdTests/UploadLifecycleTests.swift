import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Uploads (`POST /imports/files`) are the daemon's own work: read and mapped on threads that are not the
/// ones answering requests, and known to the shutdown, which waits for their import or stops it cleanly.
@Suite("uploads and the daemon's lifecycle", .serialized)
struct UploadLifecycleTests {
    let dir = TemporaryDirectory("hreaderd-upload-life")
    var state: String { dir.file("state") }
    var environment: [String: String] { ["HREADERD_STATE_DIR": state, "HREADERD_PASSWORD_FILE": dir.file("pw"), "TZ": "UTC"] }

    func hreaderd(_ arguments: String...) throws -> (status: Int32, out: String, err: String) {
        try run(productsDirectory + "/hreaderd", arguments, environment: environment)
    }

    /// A new store and an API token for it.
    func prepare() throws -> [String: String] {
        try "upload pw\n".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        #expect(try hreaderd("init").status == 0)
        let token = try hreaderd("token", "create").out.trimmingCharacters(in: .whitespacesAndNewlines)
        return ["Authorization": "Bearer \(token)"]
    }

    /// A generated FHIR bundle of one person and `resources` resources: one long record (mapped as it is written).
    func bundle(resources: Int, seed: Int = 2012) throws -> [UInt8] {
        let path = dir.file("bundle-\(resources)-\(seed).json")
        let made = try run(productsDirectory + "/generate-records", ["--format", "fhir", "--entries", String(resources - 1), "--members", "1",
                                                                      "--seed", String(seed), "--output", path])
        #expect(made.status == 0, "\(made.err)")
        return fileBytes(path)
    }

    func upload(_ bytes: [UInt8], to daemon: Daemon, auth: [String: String]) throws -> HTTPTestClient.Response {
        try daemon.client.request("POST", "/imports/files?name=bundle.json",
                                  headers: auth.merging(["Content-Type": "application/fhir+json"]) { a, _ in a }, body: bytes)
    }

    /// The stored patients' lines of `hreaderd patients` (without the heading).
    func patients() throws -> [Substring] {
        try hreaderd("patients").out.split(separator: "\n").dropFirst().map { $0 }
    }

    /// `hreaderd-storecheck`: the store is sound and every patient whole.
    func expectStoreWhole() throws {
        let check = try run(productsDirectory + "/hreaderd-storecheck", [state, "upload pw"], environment: environment)
        #expect(check.status == 0, "\(check.err)")
        #expect(check.out.contains("integrity ok"))
        for line in check.out.split(separator: "\n") where line.hasPrefix("patient ") {
            let fields = line.split(separator: " ")
            #expect(fields.count >= 5 && fields[3] == fields[4], "a patient stored in part: \(line)")
        }
    }

    @Test("SIGTERM while an upload is imported: the daemon waits for the import, exits 0, and the patient is whole")
    func shutdownWaitsForUpload() throws {
        let auth = try prepare()
        let bytes = try bundle(resources: 20_000)
        // A grace long enough for the import of a debug build on a busy machine.
        let daemon = try Daemon(state: state, arguments: ["--shutdown-grace", "60"], environment: environment)
        let accepted = try upload(bytes, to: daemon, auth: auth)
        #expect(accepted.status == 202, "\(accepted.text)")
        let status = daemon.stop() // SIGTERM at once: the job has only begun
        #expect(status == 0, "exit status \(status): \(daemon.output.suffix(2000))")
        #expect(daemon.output.contains("waiting up to"), "\(daemon.output.suffix(2000))")
        #expect(daemon.output.contains("stopped"))
        let stored = try patients()
        #expect(stored.count == 1, "\(stored)")
        try expectStoreWhole()

        let again = try Daemon(state: state, environment: environment)
        defer { #expect(again.stop() == 0) }
        let id = try #require(((accepted.object["job"] as? [String: Any])?["id"] as? NSNumber)?.intValue)
        let job = try again.client.get("/imports/jobs/\(id)", headers: auth).object["job"] as? [String: Any]
        #expect(job?["state"] as? String == "done", "\(job ?? [:])")
    }

    @Test("with no grace left, SIGTERM stops an upload's import cleanly: exit 0, nothing of it kept, the job failed as interrupted")
    func shutdownStopsUpload() throws {
        let auth = try prepare()
        let bytes = try bundle(resources: 60_000)
        // The import jobs' loop polling every 50 ms: it soon waits for the store's writer, which the upload's import
        // holds. The runner stopped first then waited for the whole import, whatever the grace (a CI run saw the
        // upload imported whole); the uploads are now stopped before it.
        let daemon = try Daemon(state: state, arguments: ["--shutdown-grace", "0", "--sync-retry-base", "0.05"], environment: environment)
        let accepted = try upload(bytes, to: daemon, auth: auth)
        #expect(accepted.status == 202, "\(accepted.text)")
        // The import under way, holding the writer, and the loop waiting for it.
        usleep(500_000)
        let status = daemon.stop()
        #expect(status == 0, "exit status \(status) (9: it hung and was killed): \(daemon.output.suffix(2000))")
        #expect(daemon.output.contains("stopping 1 upload import"), "\(daemon.output.suffix(2000))")
        // The one patient was being written when the import was stopped: its transaction is undone, and the file
        // that was kept for it goes too. The store is as before the upload.
        #expect(try patients().isEmpty)
        try expectStoreWhole()

        let again = try Daemon(state: state, environment: environment)
        defer { #expect(again.stop() == 0) }
        let id = try #require(((accepted.object["job"] as? [String: Any])?["id"] as? NSNumber)?.intValue)
        let job = try again.client.get("/imports/jobs/\(id)", headers: auth).object["job"] as? [String: Any]
        #expect(job?["state"] as? String == "failed", "\(job ?? [:])")
        #expect((job?["last_error"] as? String)?.hasPrefix("interrupted: the daemon stopped during the import") == true, "\(job ?? [:])")
        // Uploaded again, it imports whole.
        let retried = try upload(bytes, to: again, auth: auth)
        #expect(retried.status == 202, "\(retried.text)")
        let retriedID = try #require(((retried.object["job"] as? [String: Any])?["id"] as? NSNumber)?.intValue)
        var end: [String: Any] = [:]
        for _ in 0..<1200 {
            end = try again.client.get("/imports/jobs/\(retriedID)", headers: auth).object["job"] as? [String: Any] ?? [:]
            if end["state"] as? String != "running" { break }
            usleep(100_000)
        }
        #expect(end["state"] as? String == "done", "\(end)")
    }

    @Test("while uploads are read and mapped, the daemon still answers /healthz and patient routes")
    func uploadsDoNotHoldRequestThreads() throws {
        let auth = try prepare()
        let bytes = try bundle(resources: 60_000)
        // No grace: the imports are not what this test waits for.
        let daemon = try Daemon(state: state, arguments: ["--shutdown-grace", "0"], environment: environment)
        defer { #expect(daemon.stop() == 0) }
        // Two large uploads at once: as many as this machine's small pool has threads. Read on the concurrency
        // pool, they would hold every one of its threads until the first was read.
        final class Answers: @unchecked Sendable {
            let lock = NSLock()
            var statuses: [Int] = []
            func add(_ status: Int) { lock.lock(); statuses.append(status); lock.unlock() }
            var count: Int { lock.lock(); defer { lock.unlock() }; return statuses.count }
        }
        let answers = Answers()
        let client = daemon.client
        let uploads = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: uploads) {
                let status = (try? client.request("POST", "/imports/files?name=bundle.json",
                                                  headers: auth.merging(["Content-Type": "application/fhir+json"]) { a, _ in a },
                                                  body: bytes).status) ?? 0
                answers.add(status)
            }
        }
        usleep(300_000) // both bodies sent: the daemon is reading the first and has the second waiting
        let health = try daemon.client.get("/healthz")
        let answeredBefore = answers.count
        let people = try daemon.client.get("/patients.json", headers: auth)
        #expect(health.status == 200)
        #expect(people.status == 200)
        #expect(answeredBefore == 0, "/healthz answered only after an upload was read")
        #expect(uploads.wait(timeout: .now() + 300) == .success)
        #expect(answers.statuses == [202, 202], "\(answers.statuses)")
    }
}
