import Foundation
import HealthRecord
@testable import Library
import LibraryPackBuilder
import Store
import TestSupport

/// Packs for the tests, built from the project's copy of the content (`Resources/library/`), signed with a
/// key made for this test process. The real pack is built once and copied for each test that changes it.
final class PackFixture: Sendable {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let resources = repository + "/Resources/library"

    /// The starter pack, version 2025.10.1.
    static let shared: PackFixture = {
        do { return try PackFixture(version: "2025.10.1") } catch { fatalError("cannot build the test pack: \(error)") }
    }()

    let directory = TemporaryDirectory("hreaderd-library-fixture")
    let key: PackPrivateKey
    let publicKey: PackPublicKey
    let folder: String
    let buildMilliseconds: Double

    init(version: String, key: PackPrivateKey? = nil) throws {
        self.key = try key ?? PackPrivateKey.generate()
        publicKey = try self.key.publicKey
        folder = directory.file("pack-\(version)")
        let start = ContinuousClock.now
        _ = try Self.builder(version: version).build(into: folder, key: self.key)
        buildMilliseconds = Self.milliseconds(since: start)
    }

    static func builder(version: String) throws -> PackBuilder {
        PackBuilder(content: try ContentFolder(directory: resources + "/content"), codeTables: try CodeTables(directory: resources + "/codes"),
                    strings: try StringTables(directory: resources + "/strings"), version: PackVersion(version)!,
                    created: Timestamp.parse("2025-10-31T00:00:00Z")!)
    }

    var trust: PackTrust { .signature([publicKey]) }

    /// A copy of the pack's folder to change.
    func copy(into parent: TemporaryDirectory, name: String = "pack") throws -> String {
        let target = parent.file(name)
        try FileManager.default.copyItem(atPath: folder, toPath: target)
        return target
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }
}

/// Changes to a pack's files, as a tampered or broken download would have them.
enum PackEdit {
    static func manifest(_ folder: String) throws -> PackManifest {
        try PackManifest.parse(fileBytes(folder + "/manifest.json"))
    }

    static func writeManifest(_ bytes: [UInt8], in folder: String, signedWith key: PackPrivateKey?) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/manifest.json"))
        if let key { try Data(PackSignature.encode(try key.sign(bytes))).write(to: URL(fileURLWithPath: folder + "/manifest.json.sig")) }
    }

    /// Rewrites the database with `edit`, then the `.gz`, the manifest's hashes (and `editManifest`), and signs it.
    static func database(in folder: String, key: PackPrivateKey, _ edit: (Database) throws -> Void,
                         editManifest: (inout PackManifest) -> Void = { _ in }) throws {
        var manifest = try manifest(folder)
        let gzPath = folder + "/" + manifest.database.file
        let scratch = folder + "/.edit.sqlite"
        try Data(Gzip.decompress(fileBytes(gzPath))!).write(to: URL(fileURLWithPath: scratch))
        do {
            let db = try Database(path: scratch, key: nil, mode: .readWrite)
            try edit(db)
            try db.execute("PRAGMA journal_mode = DELETE")
        }
        let bytes = fileBytes(scratch)
        try FileManager.default.removeItem(atPath: scratch)
        let gz = Gzip.compress(bytes)!
        try Data(gz).write(to: URL(fileURLWithPath: gzPath))
        manifest.database = .init(file: manifest.database.file, bytes: Int64(gz.count), sha256: PackBuilder.sha256(bytes), gzSHA256: PackBuilder.sha256(gz))
        editManifest(&manifest)
        try writeManifest(manifest.serialized(), in: folder, signedWith: key)
    }
}

extension LibraryError {
    /// The case alone, for comparing errors whose details (paths, sizes) differ.
    var kind: String { code }
}
