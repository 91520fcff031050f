import Foundation
import HTTPKit
import HealthRecord
@testable import hreaderd
import Library
import LibraryPackBuilder
import Logging
import Synchronization
import Testing
import TestSupport
import TimelineAPI

/// Packs for the update tests, built once: small (a few topics, every vaccine), so that each test's
/// downloads, checks and installs are quick. `trusted` signs the installed and the offered pack; `stranger`
/// is a key the installation does not trust.
enum UpdatePacks {
    static let directory = TemporaryDirectory("hreaderd-update-packs")
    static let topics: Set<String> = ["2", "4", "6308", "294", "1687", "1507", "5930"]
    static let trusted: PackPrivateKey = try! PackPrivateKey.generate()
    static let stranger: PackPrivateKey = try! PackPrivateKey.generate()
    static let installedVersion = "2025.10.1"
    static let offeredVersion = "2025.11.1"

    /// The pack installed before each test.
    static let installed: String = build(installedVersion, key: trusted, name: "installed")
    /// The newer pack the publisher offers.
    static let offered: String = build(offeredVersion, key: trusted, name: "offered")
    /// The same newer pack signed by a key that is not trusted.
    static let offeredByStranger: String = build(offeredVersion, key: stranger, name: "stranger")

    static func build(_ version: String, key: PackPrivateKey, name: String) -> String {
        let folder = directory.file(name)
        do { try LibraryPacks.build(version: version, key: key, into: folder, topics: topics) } catch { fatalError("\(error)") }
        return folder
    }

    static func manifest(_ folder: String) throws -> PackManifest {
        try PackManifest.parse(fileBytes(folder + "/manifest.json"))
    }
}

/// A library with the older pack installed, a publisher serving a newer one (or a broken one), the daemon's
/// update service over them, and the routes served in this process.
final class UpdateHarness: @unchecked Sendable {
    let dir = TemporaryDirectory("hreaderd-update")
    let publisher: PackPublisher
    let service: LibraryUpdateService
    let library: Library
    let server: HTTPServer
    let client: HTTPTestClient
    private var task: Task<Void, Never>?

    var served: String { dir.file("served") }
    var libraryDirectory: String { dir.file("library") }

    /// `offer`: the pack folder the publisher serves (copied, so that a test may change it).
    init(offer: String = UpdatePacks.offered, settings: LibraryUpdateService.Settings = UpdateHarness.settings,
         edit: (String) throws -> Void = { _ in }) async throws {
        try FileManager.default.copyItem(atPath: offer, toPath: dir.file("served"))
        try edit(dir.file("served"))
        try LibraryPacks.install(UpdatePacks.installed, into: dir.file("library"), key: UpdatePacks.trusted)
        try LibraryPacks.writePublicKey(UpdatePacks.trusted, to: dir.file("trusted.pub"))
        publisher = try PackPublisher(folder: dir.file("served"))
        library = Library(directory: dir.file("library"))
        service = LibraryUpdateService(library: library, bundled: nil,
                                       publisher: try LibraryPublisher(url: publisher.url, keyFiles: [dir.file("trusted.pub")]),
                                       settings: settings, logger: Logger(label: "test"))
        var configuration = TimelineApp.Configuration()
        configuration.library = LibraryAccess(library: library, updates: service)
        let app = TimelineApp(configuration: configuration, gate: StoreGate())
        var serverConfiguration = HTTPServer.Configuration()
        serverConfiguration.listeners = [.tcp(host: "127.0.0.1", port: 0)]
        serverConfiguration.eventLoopThreads = 1
        serverConfiguration.accessLogLevel = .debug
        server = HTTPServer(configuration: serverConfiguration, router: try app.router(), middleware: [], logger: Logger(label: "test"))
        let addresses = try await server.start()
        client = HTTPTestClient(port: addresses[0].port ?? 0)
    }

    static var settings: LibraryUpdateService.Settings {
        var settings = LibraryUpdateService.Settings()
        settings.timeoutSeconds = 1
        settings.pauseBetweenAttempts = .milliseconds(50)
        settings.tickSeconds = 1
        return settings
    }

    /// Starts the service's loop (the check at start comes first).
    func start() {
        let service = self.service
        task = Task { await service.run() }
    }

    func stop() async {
        task?.cancel()
        await task?.value
        await server.shutdown(gracePeriod: .seconds(1))
        publisher.stop()
    }

    func status() async throws -> [String: Any] { try await client.get("/library.json").object }

    /// Polls `/library.json` until `condition` holds (at most `seconds`), and returns the last answer.
    func waitFor(seconds: Double = 20, _ condition: ([String: Any]) -> Bool) async throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let object = try await status()
            if condition(object) || Date() > deadline { return object }
            try await Task.sleep(for: .milliseconds(25))
        }
    }

    /// POST /library/update, then waits for its end; the `update` object.
    func update() async throws -> [String: Any] {
        let started = try await client.send("POST", "/library/update")
        #expect(started.status == 202)
        let object = try await waitFor { ["installed", "failed"].contains(Self.update($0)["state"] as? String) }
        return Self.update(object)
    }

    static func update(_ object: [String: Any]) -> [String: Any] { object["update"] as? [String: Any] ?? [:] }
    static func installedVersion(_ object: [String: Any]) -> String? { (object["installed"] as? [String: Any])?["version"] as? String }

    /// The installed pack is the older one and still reads.
    func expectOldPackServes(_ sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let object = try await status()
        #expect(Self.installedVersion(object) == UpdatePacks.installedVersion, sourceLocation: sourceLocation)
        #expect(try library.installed()?.version.text == UpdatePacks.installedVersion, sourceLocation: sourceLocation)
        #expect(try library.topic(id: "2")?.title == "Asthma", sourceLocation: sourceLocation)
        let search = try await client.get("/library/search.json?q=asthma")
        #expect(search.status == 200, sourceLocation: sourceLocation)
    }

    var downloadFolder: String { libraryDirectory + "/download" }
}

@Suite("the library's update service", .serialized)
struct LibraryUpdateTests {
    static let gzName = PackBuilder.databaseFileName(PackVersion(UpdatePacks.offeredVersion)!)

    @Test("a newer pack is checked at start, offered in /library.json, installed on POST /library/update, then no longer offered")
    func offeredThenInstalled() async throws {
        let harness = try await UpdateHarness()
        harness.start()
        let offered = try await harness.waitFor { $0["available"] is [String: Any] }
        let available = try #require(offered["available"] as? [String: Any])
        let manifest = try UpdatePacks.manifest(UpdatePacks.offered)
        #expect(available["version"] as? String == UpdatePacks.offeredVersion && available["bytes"] as? Int == Int(manifest.database.bytes))
        #expect(UpdateHarness.installedVersion(offered) == UpdatePacks.installedVersion)  // never installed unasked
        #expect(harness.publisher.requests(for: Self.gzName).isEmpty)
        let publisher = try #require(offered["publisher"] as? [String: Any])
        #expect(publisher["url"] as? String == harness.publisher.url && publisher["checked_at"] is Int && publisher["error"] is NSNull)

        let update = try await harness.update()
        #expect(update["state"] as? String == "installed" && update["error"] is NSNull)
        #expect(update["done"] as? Int == Int(manifest.database.bytes) && update["total"] as? Int == Int(manifest.database.bytes))
        let after = try await harness.status()
        #expect(UpdateHarness.installedVersion(after) == UpdatePacks.offeredVersion)
        #expect((after["installed"] as? [String: Any])?["source"] as? String == harness.publisher.url)
        #expect(after["available"] is NSNull)
        #expect(try harness.library.installed()?.version.text == UpdatePacks.offeredVersion)
        // The update asked the publisher again before downloading; the download folder is gone.
        #expect(harness.publisher.requests(for: "manifest.json").count == 2)
        #expect(!FileManager.default.fileExists(atPath: harness.downloadFolder))
        let search = try await harness.client.get("/library/search.json?q=asthma")
        #expect((search.object["results"] as? [[String: Any]])?.first?["title"] as? String == "Asthma")
        await harness.stop()
    }

    @Test("a download cut halfway is resumed with Range in the same update, and the pack installed")
    func cutAndResumed() async throws {
        let harness = try await UpdateHarness()
        let size = Int(try UpdatePacks.manifest(UpdatePacks.offered).database.bytes)
        harness.publisher.setFault(.cutAfter(bytes: size / 2, times: 1), for: Self.gzName)
        harness.start()
        let update = try await harness.update()
        #expect(update["state"] as? String == "installed", "\(update)")
        let downloads = harness.publisher.requests(for: Self.gzName)
        #expect(downloads.map(\.range) == [nil, "bytes=\(size / 2)-"])
        #expect(downloads.map(\.status) == [200, 206])
        #expect(try harness.library.installed()?.version.text == UpdatePacks.offeredVersion)
        await harness.stop()
    }

    @Test("a cut that outlasts the update's attempts fails, keeps the part; the next update resumes it with Range")
    func cutKeptThenResumed() async throws {
        var settings = UpdateHarness.settings
        settings.downloadAttempts = 1
        let harness = try await UpdateHarness(settings: settings)
        let size = Int(try UpdatePacks.manifest(UpdatePacks.offered).database.bytes)
        harness.publisher.setFault(.cutAfter(bytes: size / 3, times: 1), for: Self.gzName)
        harness.start()
        let failed = try await harness.update()
        #expect(failed["state"] as? String == "failed" && failed["error_code"] as? String == "download_cut")
        #expect((failed["error"] as? String)?.contains("resumes") == true)
        #expect(failed["done"] as? Int == size / 3)
        #expect(PackFilesLite.size(harness.downloadFolder + "/" + Self.gzName) == Int64(size / 3))
        try await harness.expectOldPackServes()

        let installed = try await harness.update()
        #expect(installed["state"] as? String == "installed")
        #expect(harness.publisher.requests(for: Self.gzName).map(\.range) == [nil, "bytes=\(size / 3)-"])
        await harness.stop()
    }

    @Test("a 200 in place of the 206 asked for writes the file from the start, and the pack installs")
    func restartOn200() async throws {
        var settings = UpdateHarness.settings
        settings.downloadAttempts = 1
        let harness = try await UpdateHarness(settings: settings)
        let size = Int(try UpdatePacks.manifest(UpdatePacks.offered).database.bytes)
        harness.publisher.setFault(.cutAfter(bytes: size / 2, times: 1), for: Self.gzName)
        harness.start()
        #expect(try await harness.update()["error_code"] as? String == "download_cut")
        harness.publisher.setFault(.ignoreRange, for: Self.gzName)
        let update = try await harness.update()
        #expect(update["state"] as? String == "installed")
        #expect(harness.publisher.requests(for: Self.gzName).map(\.status) == [200, 200])
        await harness.stop()
    }

    /// Each bad input: the update fails with its code, the old pack serves, `/library.json` says why.
    static func expectRefused(_ harness: UpdateHarness, code: String, _ sourceLocation: SourceLocation = #_sourceLocation) async throws {
        harness.start()
        let update = try await harness.update()
        #expect(update["state"] as? String == "failed", sourceLocation: sourceLocation)
        #expect(update["error_code"] as? String == code, "\(update)", sourceLocation: sourceLocation)
        #expect((update["error"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
        try await harness.expectOldPackServes(sourceLocation)
        let after = try await harness.status()
        #expect(UpdateHarness.update(after)["error_code"] as? String == code, sourceLocation: sourceLocation)
        await harness.stop()
    }

    @Test("a manifest changed after signing: signature_not_verified, checked before anything is downloaded")
    func changedManifest() async throws {
        let harness = try await UpdateHarness { folder in
            var manifest = try UpdatePacks.manifest(folder)
            manifest.publisher = "someone else"
            try Data(manifest.serialized()).write(to: URL(fileURLWithPath: folder + "/manifest.json"))
        }
        try await Self.expectRefused(harness, code: "signature_not_verified")
        #expect(harness.publisher.requests(for: Self.gzName).isEmpty)
    }

    @Test("a pack signed by a key this installation does not trust: signature_not_verified, never offered")
    func untrustedKey() async throws {
        let harness = try await UpdateHarness(offer: UpdatePacks.offeredByStranger)
        harness.start()
        let checked = try await harness.waitFor { ($0["publisher"] as? [String: Any])?["checked_at"] is Int }
        #expect(checked["available"] is NSNull)
        #expect((checked["publisher"] as? [String: Any])?["error_code"] as? String == "signature_not_verified")
        await harness.stop()
        let again = try await UpdateHarness(offer: UpdatePacks.offeredByStranger)
        try await Self.expectRefused(again, code: "signature_not_verified")
        #expect(again.publisher.requests(for: Self.gzName).isEmpty)
    }

    @Test("a .gz whose bytes are not the signed ones: gzip_hash_mismatch, and the file is not kept to resume from")
    func hashMismatch() async throws {
        let harness = try await UpdateHarness { folder in
            let path = folder + "/" + LibraryUpdateTests.gzName
            var bytes = fileBytes(path)
            bytes[bytes.count / 2] ^= 0xFF
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        try await Self.expectRefused(harness, code: "gzip_hash_mismatch")
        #expect(!FileManager.default.fileExists(atPath: harness.downloadFolder + "/" + Self.gzName))
    }

    @Test("a pack of a newer format: unsupported_format")
    func newerFormat() async throws {
        let harness = try await UpdateHarness { folder in
            var manifest = try UpdatePacks.manifest(folder)
            manifest.format = 2
            let bytes = manifest.serialized()
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/manifest.json"))
            try Data(PackSignature.encode(try UpdatePacks.trusted.sign(bytes))).write(to: URL(fileURLWithPath: folder + "/manifest.json.sig"))
        }
        try await Self.expectRefused(harness, code: "unsupported_format")
    }

    @Test("a publisher answering 500 for the manifest, or for the pack: publisher_error", arguments: ["manifest.json", "pack"])
    func publisher500(_ file: String) async throws {
        let harness = try await UpdateHarness()
        harness.publisher.setFault(.status(500), for: file == "pack" ? Self.gzName : file)
        try await Self.expectRefused(harness, code: "publisher_error")
    }

    @Test("a publisher that never answers: publisher_timeout after the deadline")
    func publisherHangs() async throws {
        let harness = try await UpdateHarness()
        harness.publisher.setFault(.hang, for: "manifest.json")
        let start = Date()
        try await Self.expectRefused(harness, code: "publisher_timeout")
        #expect(Date().timeIntervalSince(start) < 10)
    }

    @Test("a publisher offering nothing newer: the update ends failed with no_update, nothing downloaded")
    func nothingNewer() async throws {
        let harness = try await UpdateHarness(offer: UpdatePacks.installed)
        try await Self.expectRefused(harness, code: "no_update")
        #expect(harness.publisher.requests(for: PackBuilder.databaseFileName(PackVersion(UpdatePacks.installedVersion)!)).isEmpty)
    }

    @Test("a failed check is reported and not tried again before the next check; POST while one runs is 409")
    func failedCheckWaits() async throws {
        let harness = try await UpdateHarness()
        harness.publisher.setFault(.status(503), for: "manifest.json")
        harness.start()
        let checked = try await harness.waitFor { ($0["publisher"] as? [String: Any])?["checked_at"] is Int }
        let publisher = try #require(checked["publisher"] as? [String: Any])
        #expect(publisher["error_code"] as? String == "publisher_error" && (publisher["error"] as? String)?.contains("503") == true)
        #expect((publisher["next_check_at"] as? Int ?? 0) - (publisher["checked_at"] as? Int ?? 0) == 86_400)
        try await Task.sleep(for: .milliseconds(2500))  // a few of the service's ticks
        #expect(harness.publisher.requests(for: "manifest.json").count == 1)
        harness.publisher.setFault(.hang, for: "manifest.json")
        #expect(try await harness.client.send("POST", "/library/update").status == 202)
        let second = try await harness.client.send("POST", "/library/update")
        #expect(second.status == 409 && second.errorCode == "update_running")
        await harness.stop()
    }

    @Test("a disk full during the switch leaves the old pack: the installer's tests make it fail at each step (LibraryInstallerTests)")
    func diskFullIsTheInstallers() {
        // LibraryInstallerTests: "a failure at any step before the switch leaves the old pack current and no file behind" and
        // "a disk that fills while the database is written (a file-size limit in the pack tool) leaves the old pack current".
        // The service reports such a failure as any other LibraryError: its code (disk_full) in update.error_code.
        #expect(LibraryUpdateError.pack(.diskFull(path: "/x")).code == "disk_full")
        #expect(LibraryUpdateError.pack(.diskFull(path: "/x")).description.contains("installed pack stays"))
    }
}

@Suite("the library publisher's URL")
struct LibraryPublisherURLTests {
    @Test("https anywhere, http only to a loopback address", arguments: [
        ("https://library.example/packs", true), ("https://library.example/packs/", true), ("http://127.0.0.1:8080/packs", true),
        ("http://127.8.9.10/p", true), ("http://localhost:1/", true), ("http://[::1]:8080/p", true),
        ("http://library.example/packs", false), ("http://10.0.0.1/packs", false), ("ftp://127.0.0.1/p", false), ("file:///tmp/p", false),
        ("library.example/packs", false), ("https://user:pw@library.example/p", false), ("https://library.example/p?x=1", false), ("", false),
    ])
    func urls(_ text: String, _ accepted: Bool) {
        #expect(((try? LibraryPublisher.parseURL(text)) != nil) == accepted, "\(text)")
    }

    @Test("the pack's files are found under the folder's URL, a trailing slash or not")
    func files() throws {
        #expect(try LibraryPublisher.parseURL("https://library.example/packs/").absoluteString == "https://library.example/packs")
    }
}
