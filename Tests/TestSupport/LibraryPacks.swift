import Foundation
import HealthRecord
import Library
import LibraryPackBuilder

/// Library packs for the tests of the routes, the update service and the CLI: built from the project's copy
/// of the content (`Resources/library/`), signed with keys made in the test process.
public enum LibraryPacks {
    public static let resources: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Resources/library").path

    /// The content, read once; `topics` keeps only those topic ids (and drops the vaccines' crosswalk rows
    /// and code-table rows that name others), for packs that are quick to build.
    public static func content(topics: Set<String>? = nil) throws -> (ContentFolder, CodeTables) {
        var content = try ContentFolder(directory: resources + "/content")
        var codes = try CodeTables(directory: resources + "/codes")
        if let topics {
            content.topics = content.topics.filter { topics.contains($0.id) }.map { topic in
                var topic = topic
                topic.related = topic.related.filter { topics.contains($0.id) }
                return topic
            }
            content.crosswalk = content.crosswalk.filter { topics.contains($0.topicID) }
            codes = CodeTables(rows: codes.rows.filter { $0.topicID.map { $0.isEmpty || topics.contains($0) } ?? true })
        }
        return (content, codes)
    }

    /// Builds a pack of `version` into `folder`, signed with `key`; its manifest.
    @discardableResult
    package static func build(version: String, key: PackPrivateKey, into folder: String, topics: Set<String>? = nil) throws -> PackManifest {
        let (content, codes) = try content(topics: topics)
        let builder = PackBuilder(content: content, codeTables: codes, strings: try StringTables(directory: resources + "/strings"),
                                  version: PackVersion(version)!, created: 1_761_868_800)
        return try builder.build(into: folder, key: key).manifest
    }

    /// Writes `manifest.json.sha256` beside a pack's manifest, as `scripts/build-library-pack.sh` does for
    /// the bundled pack; returns the hash.
    @discardableResult
    public static func pinManifest(of folder: String) throws -> String {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json")))
        let hash = PackBuilder.sha256(bytes)
        try Data((hash + "\n").utf8).write(to: URL(fileURLWithPath: folder + "/manifest.json.sha256"))
        return hash
    }

    /// Installs the pack in `folder` into a library folder, trusted by `key`.
    @discardableResult
    package static func install(_ folder: String, into library: String, key: PackPrivateKey, source: String = "test") throws -> InstalledPack {
        try LibraryInstaller(directory: library, trust: .signature([try key.publicKey])).install(folder: folder, source: source, policy: .any)
    }

    /// Writes `key`'s public half to `path` (PEM), for `--library-public-key`.
    package static func writePublicKey(_ key: PackPrivateKey, to path: String) throws {
        try Data(try key.publicKey.pem).write(to: URL(fileURLWithPath: path))
    }
}
