import Foundation
import HealthRecord
@testable import Library
import LibraryPackBuilder
import Store
import Testing
import TestSupport

@Suite("A pack is installed atomically")
struct LibraryInstallerTests {
    let fixture = PackFixture.shared

    /// The starter pack again as version 2025.11, signed by the same key.
    static let newer: PackFixture = {
        do { return try PackFixture(version: "2025.11", key: PackFixture.shared.key) } catch { fatalError("\(error)") }
    }()

    @Test("install, then what is installed: version, counts, source, time; a second install of the same version is refused")
    func installAndReport() throws {
        let scratch = TemporaryDirectory()
        let library = scratch.file("state/library")
        let installer = LibraryInstaller(directory: library, trust: fixture.trust)
        #expect(try installer.installed() == nil)
        #expect(throws: LibraryError.notInstalled) { try Library(directory: library).topic(id: "6308") }
        let start = ContinuousClock.now
        let pack = try installer.install(folder: fixture.folder, source: "https://example.invalid/packs/2025.10.1/")
        print("starter pack installed in \(Int(PackFixture.milliseconds(since: start))) ms (debug build)")
        #expect(pack.version.text == "2025.10.1" && pack.counts.topics == 1017 && pack.source == "https://example.invalid/packs/2025.10.1/")
        #expect(abs(pack.installedAt - Int64(Date().timeIntervalSince1970)) < 60)
        #expect(try Library(directory: library).installed() == pack)
        #expect(throws: LibraryError.notNewer(installed: "2025.10.1", offered: "2025.10.1")) {
            try installer.install(folder: fixture.folder, source: "again")
        }
        #expect(try installer.install(folder: fixture.folder, source: "repair", policy: .any).source == "repair")
        let names = try FileManager.default.contentsOfDirectory(atPath: library).sorted()
        #expect(names == [".install.lock", "current.json", pack.file])
    }

    @Test("an update switches the library to the new pack and removes the old one; an older pack is refused")
    func update() throws {
        let scratch = TemporaryDirectory()
        let library = scratch.file("library")
        let installer = LibraryInstaller(directory: library, trust: fixture.trust)
        let old = try installer.install(folder: fixture.folder, source: "bundled")
        let reader = Library(directory: library)
        #expect(try reader.installed()?.version.text == "2025.10.1")
        _ = try reader.topic(id: "6308")
        let new = try installer.install(folder: Self.newer.folder, source: "update")
        #expect(try reader.installed()?.version.text == "2025.11")
        #expect(try reader.topic(id: "6308")?.title == "A1C")
        #expect(!FileManager.default.fileExists(atPath: library + "/" + old.file))
        #expect(FileManager.default.fileExists(atPath: library + "/" + new.file))
        #expect(throws: LibraryError.notNewer(installed: "2025.11", offered: "2025.10.1")) {
            try installer.install(folder: fixture.folder, source: "downgrade")
        }
    }

    @Test("a reader opened before the switch keeps reading the old pack to the end of its query")
    func readerSurvivesSwitch() throws {
        let scratch = TemporaryDirectory()
        let library = scratch.file("library")
        let installer = LibraryInstaller(directory: library, trust: fixture.trust)
        let old = try installer.install(folder: fixture.folder, source: "bundled")
        let db = try Database(path: library + "/" + old.file, key: nil, mode: .readOnly)
        var seen = 0
        try db.statement("SELECT id, summary FROM topics ORDER BY rowid").forEach { row in
            seen += 1
            if seen == 10 { _ = try installer.install(folder: Self.newer.folder, source: "update") }
            #expect(!row.string(1).isEmpty)
        }
        #expect(seen == 1017)
        #expect(!FileManager.default.fileExists(atPath: library + "/" + old.file))
        #expect(try db.scalar("SELECT value FROM info WHERE key = 'version'", as: String.self) == "2025.10.1")
        #expect(try Library(directory: library).installed()?.version.text == "2025.11")
    }

    @Test("a failure at any step before the switch leaves the old pack current and no file behind",
          arguments: [LibraryInstaller.Step.verified, .packInPlace, .pointerWritten])
    func failureBeforeSwitch(_ failing: LibraryInstaller.Step) throws {
        let scratch = TemporaryDirectory()
        let library = scratch.file("library")
        let installer = LibraryInstaller(directory: library, trust: fixture.trust)
        let old = try installer.install(folder: fixture.folder, source: "bundled")
        var failingInstaller = installer
        failingInstaller.faultInjection = { step throws(LibraryError) in
            if step == failing { throw .diskFull(path: library + "/current.json") }
        }
        #expect(throws: LibraryError.diskFull(path: library + "/current.json")) {
            try failingInstaller.install(folder: Self.newer.folder, source: "update")
        }
        #expect(try installer.installed() == old)
        #expect(try FileManager.default.contentsOfDirectory(atPath: library).sorted() == [".install.lock", "current.json", old.file])
        #expect(try Library(directory: library).strings(language: "en")["library.title"] == "Health library")
    }

    @Test("a failure after the switch reports it, and the new pack is current")
    func failureAfterSwitch() throws {
        let scratch = TemporaryDirectory()
        let library = scratch.file("library")
        var installer = LibraryInstaller(directory: library, trust: fixture.trust)
        try installer.install(folder: fixture.folder, source: "bundled")
        installer.faultInjection = { step throws(LibraryError) in if step == .switched { throw .io(operation: "fsync", path: library, errno: EIO) } }
        #expect(throws: LibraryError.self) { try installer.install(folder: Self.newer.folder, source: "update") }
        #expect(try installer.installed()?.version.text == "2025.11")
        #expect(try Library(directory: library).topic(id: "2")?.title == "Asthma")
    }

    @Test("a disk that fills while the database is written (a file-size limit in the pack tool) leaves the old pack current")
    func diskFullInChildProcess() throws {
        let tool = productsDirectory + "/hreaderd-library-pack"
        let bash = try #require(which("bash"))
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            Issue.record("\(tool) is not built (swift build --build-tests builds it)")
            return
        }
        let scratch = TemporaryDirectory()
        let library = scratch.file("library")
        let old = try LibraryInstaller(directory: library, trust: fixture.trust).install(folder: fixture.folder, source: "bundled")
        let publicKey = scratch.file("key.pub")
        try Data(fixture.publicKey.pem).write(to: URL(fileURLWithPath: publicKey))
        // 1 MiB: the 6.6 MB database cannot be written; SIGXFSZ ignored, so write(2) fails with EFBIG.
        let result = try run(bash, ["-c", "trap '' XFSZ; ulimit -f 1024; exec \"$0\" install \"$1\" --library \"$2\" --public-key \"$3\"",
                                    tool, Self.newer.folder, library, publicKey])
        #expect(result.status == 1)
        #expect(result.err.contains("The disk is full"), "\(result.err)")
        #expect(result.err.split(separator: "\n").count == 1)
        #expect(try LibraryInstaller(directory: library, trust: fixture.trust).installed() == old)
        #expect(try FileManager.default.contentsOfDirectory(atPath: library).sorted() == [".install.lock", "current.json", old.file])
        // Without the limit the same command installs it.
        let again = try run(tool, ["install", Self.newer.folder, "--library", library, "--public-key", publicKey])
        #expect(again.status == 0, "\(again.err)")
        #expect(try Library(directory: library).installed()?.version.text == "2025.11")
    }

    @Test("one install at a time: a second one while the lock is held is told so")
    func oneAtATime() throws {
        let scratch = TemporaryDirectory()
        let library = scratch.file("library")
        var installer = LibraryInstaller(directory: library, trust: fixture.trust)
        try installer.install(folder: fixture.folder, source: "bundled")
        let second = LibraryInstaller(directory: library, trust: fixture.trust)
        let newer = Self.newer.folder
        installer.faultInjection = { step throws(LibraryError) in
            guard step == .verified else { return }
            do throws(LibraryError) { try second.install(folder: newer, source: "second") } catch {
                if error == .installInProgress { throw .installInProgress }
            }
        }
        #expect(throws: LibraryError.installInProgress) { try installer.install(folder: Self.newer.folder, source: "first", policy: .any) }
        #expect(try installer.installed()?.version.text == "2025.10.1")
    }

    @Test("the pack tool's keygen, build and verify work together and fail with one line")
    func packTool() throws {
        let tool = productsDirectory + "/hreaderd-library-pack"
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            Issue.record("\(tool) is not built")
            return
        }
        let scratch = TemporaryDirectory()
        let keygen = try run(tool, ["keygen", "--output", scratch.file("publisher.pem")])
        #expect(keygen.status == 0, "\(keygen.err)")
        var info = stat()
        stat(scratch.file("publisher.pem"), &info)
        #expect(info.st_mode & 0o777 == 0o600)
        let build = try run(tool, ["build", "--content", PackFixture.resources + "/content", "--codes", PackFixture.resources + "/codes",
                                   "--strings", PackFixture.resources + "/strings", "--key", scratch.file("publisher.pem"),
                                   "--version", "2025.10.1", "--output", scratch.file("pack")], environment: ["SOURCE_DATE_EPOCH": "1761868800"])
        #expect(build.status == 0, "\(build.err)")
        print(build.out, terminator: "")
        let verify = try run(tool, ["verify", scratch.file("pack"), "--public-key", scratch.file("publisher.pem.pub")])
        #expect(verify.status == 0 && verify.out.hasPrefix("ok: pack 2025.10.1"), "\(verify.err)")
        print(verify.out, terminator: "")
        let untrusted = try run(tool, ["verify", scratch.file("pack"), "--public-key", PackFixture.shared.directory.path + "/../missing.pub"])
        #expect(untrusted.status == 1 && untrusted.err.split(separator: "\n").count == 1)
        try Data(fixture.publicKey.pem).write(to: URL(fileURLWithPath: scratch.file("other.pub")))
        let wrongKey = try run(tool, ["verify", scratch.file("pack"), "--public-key", scratch.file("other.pub")])
        #expect(wrongKey.status == 1 && wrongKey.err.contains("does not verify"), "\(wrongKey.err)")
    }
}
