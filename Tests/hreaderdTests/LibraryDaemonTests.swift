import Foundation
import Library
import LibraryPackBuilder
import Testing
import TestSupport

/// The library with the real `hreaderd`: `serve` installs the bundled pack, offers a publisher's newer pack
/// and installs it when asked; `serve` refuses a publisher it must not use; `hreaderd library` does the same
/// from the command line.
@Suite("the library in the daemon and the CLI", .serialized)
struct LibraryDaemonTests {
    let dir = TemporaryDirectory("hreaderd-library-e2e")
    var state: String { dir.file("state") }
    var environment: [String: String] { ["HREADERD_STATE_DIR": state, "HREADERD_PASSWORD_FILE": dir.file("pw"), "TZ": "UTC"] }

    func hreaderd(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        try run(productsDirectory + "/hreaderd", arguments, environment: environment)
    }

    /// The older pack as it comes with the program: its manifest's hash recorded beside it.
    func bundledFolder() throws -> String {
        let folder = dir.file("bundled")
        try FileManager.default.copyItem(atPath: UpdatePacks.installed, toPath: folder)
        try LibraryPacks.pinManifest(of: folder)
        return folder
    }

    func publisherFolder() throws -> String {
        let folder = dir.file("served")
        try FileManager.default.copyItem(atPath: UpdatePacks.offered, toPath: folder)
        try LibraryPacks.writePublicKey(UpdatePacks.trusted, to: dir.file("trusted.pub"))
        try LibraryPacks.writePublicKey(UpdatePacks.stranger, to: dir.file("stranger.pub"))
        return folder
    }

    @Test("serve refuses a publisher URL that is not https or http to a loopback address, and a missing key, with one line",
          arguments: [
            (["--library-url", "http://library.example/packs", "--library-public-key", "/dev/null"], "--library-url must be an https URL"),
            (["--library-url", "ftp://127.0.0.1/packs", "--library-public-key", "/dev/null"], "--library-url must be an https URL"),
            (["--library-url", "https://library.example/packs"], "--library-url needs at least one --library-public-key"),
            (["--library-url", "https://library.example/packs", "--library-public-key", "/nonexistent.pem"], "--library-public-key:"),
            (["--library-public-key", "/dev/null"], "give --library-url too"),
            (["--bundled-library", "/nonexistent"], "is not a bundled library pack"),
          ])
    func refusedAtStart(_ arguments: [String], _ message: String) throws {
        let result = try hreaderd(["serve", "--listen", "127.0.0.1:0"] + arguments)
        #expect(result.status != 0)
        let lines = result.err.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("hreaderd: ") == true && result.err.contains(message), "\(result.err)")
    }

    @Test("serve installs the bundled pack at start, offers the publisher's newer one, installs it on POST /library/update, and keeps it at the next start")
    func daemonUpdates() async throws {
        try "pw\n".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        #expect(try hreaderd(["init"]).status == 0)
        let token = try hreaderd(["token", "create"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let bundled = try bundledFolder()
        let publisher = try PackPublisher(folder: try publisherFolder())
        defer { publisher.stop() }
        let arguments = ["--bundled-library", bundled, "--library-url", publisher.url, "--library-public-key", dir.file("trusted.pub"),
                         "--library-timeout", "2"]
        var daemon = try Daemon(state: state, arguments: arguments, environment: environment)
        let auth = ["Authorization": "Bearer \(token)"]
        func status() async throws -> [String: Any] { try await daemon.client.get("/library.json", headers: auth).object }
        func waitFor(_ condition: ([String: Any]) -> Bool) async throws -> [String: Any] {
            let deadline = Date().addingTimeInterval(30)
            while true {
                let object = try await status()
                if condition(object) || Date() > deadline { return object }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let offered = try await waitFor { $0["available"] is [String: Any] && $0["installed"] is [String: Any] }
        #expect(UpdateHarness.installedVersion(offered) == UpdatePacks.installedVersion)
        #expect((offered["installed"] as? [String: Any])?["source"] as? String == "bundled")
        #expect((offered["available"] as? [String: Any])?["version"] as? String == UpdatePacks.offeredVersion)

        let started = try await daemon.client.send("POST", "/library/update", headers: auth)
        #expect(started.status == 202)
        let done = try await waitFor { UpdateHarness.update($0)["state"] as? String == "installed" || UpdateHarness.update($0)["state"] as? String == "failed" }
        #expect(UpdateHarness.update(done)["state"] as? String == "installed", "\(done)")
        #expect(UpdateHarness.installedVersion(done) == UpdatePacks.offeredVersion)
        let about = try await daemon.client.get("/library/topics/2.json", headers: auth)
        #expect(about.status == 200 && about.object["title"] as? String == "Asthma")
        #expect(daemon.stop() == 0)
        #expect(daemon.output.contains("library: installed the bundled pack, version \(UpdatePacks.installedVersion)"))
        #expect(daemon.output.contains("library: installed version \(UpdatePacks.offeredVersion) from \(publisher.url)"))

        // The bundled pack is older than the installed one now: the next start leaves the library as it is.
        daemon = try Daemon(state: state, arguments: arguments, environment: environment)
        let again = try await waitFor { ($0["publisher"] as? [String: Any])?["checked_at"] is Int }
        #expect(UpdateHarness.installedVersion(again) == UpdatePacks.offeredVersion && again["available"] is NSNull)
        #expect((again["installed"] as? [String: Any])?["source"] as? String == publisher.url)
        #expect(daemon.stop() == 0)
    }

    @Test("hreaderd library status, install (a folder, its signature checked) and update (--from), each failure one line")
    func commandLine() throws {
        try "pw\n".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        #expect(try hreaderd(["init"]).status == 0)
        let served = try publisherFolder()
        try LibraryPacks.writePublicKey(UpdatePacks.trusted, to: dir.file("trusted.pub"))

        var result = try hreaderd(["library", "status"])
        #expect(result.status == 0 && result.out.hasPrefix("installed: none"))

        result = try hreaderd(["library", "install", UpdatePacks.installed, "--library-public-key", dir.file("stranger.pub")])
        #expect(result.status == 1 && result.err.split(separator: "\n").count == 1 && result.err.contains("signature_not_verified"), "\(result.err)")
        result = try hreaderd(["library", "install", UpdatePacks.installed])
        #expect(result.status == 1 && result.err.contains("--library-public-key"))
        result = try hreaderd(["library", "install", UpdatePacks.installed + "/manifest.json", "--library-public-key", dir.file("trusted.pub")])
        #expect(result.status == 0 && result.out.hasPrefix("installed \(UpdatePacks.installedVersion)"), "\(result.err)")
        result = try hreaderd(["library", "install", UpdatePacks.installed, "--library-public-key", dir.file("trusted.pub")])
        #expect(result.status == 1 && result.err.contains("not_newer"))

        let publisher = try PackPublisher(folder: served)
        defer { publisher.stop() }
        result = try hreaderd(["library", "status", "--from", publisher.url, "--library-public-key", dir.file("trusted.pub")])
        #expect(result.status == 0 && result.out.contains("available: \(UpdatePacks.offeredVersion)"), "\(result.out)\(result.err)")
        result = try hreaderd(["library", "update", "--from", publisher.url, "--library-public-key", dir.file("stranger.pub")])
        // Progress on stderr ("checking …"), then the one line of the failure.
        let failure = result.err.split(separator: "\n").filter { $0.hasPrefix("hreaderd: ") }
        #expect(result.status == 1 && failure.count == 1 && failure.first?.contains("signature_not_verified") == true, "\(result.err)")
        result = try hreaderd(["library", "update", "--from", "http://library.example/p", "--library-public-key", dir.file("trusted.pub")])
        #expect(result.status == 1 && result.err.contains("--library-url must be an https URL"))
        result = try hreaderd(["library", "update", "--from", publisher.url, "--library-public-key", dir.file("trusted.pub")])
        #expect(result.status == 0 && result.out.hasPrefix("installed \(UpdatePacks.offeredVersion)"), "\(result.err)")
        #expect(result.err.contains("downloading:") && result.err.contains("verifying"))
        result = try hreaderd(["library", "update", "--from", publisher.url, "--library-public-key", dir.file("trusted.pub")])
        #expect(result.status == 0 && result.out.contains("up to date"))
        result = try hreaderd(["library", "status"])
        #expect(result.out.hasPrefix("installed: \(UpdatePacks.offeredVersion)") && result.out.contains("from \(publisher.url)"))
    }
}
