import Foundation
@testable import Library
@testable import LibraryPackBuilder
import Testing
import TestSupport

/// `Resources/library/content/` is the project's copy of `../shared/content/` (gzipped), as
/// `scripts/generate-bmi-for-age-table.py` keeps a copy of the CDC table: the pack is built from the copy,
/// and these tests keep the copy true to its source.
@Suite("The project's copy of the library content")
struct ContentCopyTests {
    static let copy = PackFixture.resources + "/content"
    /// `../shared/content/` beside the repository (or `HREADERD_LIBRARY_CONTENT`).
    static let shared: String = {
        if let override = ProcessInfo.processInfo.environment["HREADERD_LIBRARY_CONTENT"], !override.isEmpty { return override }
        return URL(fileURLWithPath: PackFixture.repository).deletingLastPathComponent().appendingPathComponent("shared/content").path
    }()
    static let sharedAvailable = FileManager.default.fileExists(atPath: shared + "/README.md")
    static let files = [ContentFolder.topicsFile, ContentFolder.vaccinesFile, ContentFolder.crosswalkFile]

    @Test("each file of the copy has the SHA-256 the content's manifest records", arguments: files)
    func matchesManifest(_ name: String) throws {
        struct Manifest: Decodable {
            struct File: Decodable { var path: String; var sha256: String }
            var files: [File]
        }
        let manifest = try JSONDecoder().decode(Manifest.self, from: Data(fileBytes(Self.copy + "/manifest.json")))
        let expected = try #require(manifest.files.first { $0.path == name }?.sha256)
        let bytes = try #require(Gzip.decompress(fileBytes(Self.copy + "/" + name + ".gz")))
        #expect(StreamingSHA256.hex(bytes) == expected)
    }

    @Test("the copy equals ../shared/content/, file by file", .enabled(if: sharedAvailable, "../shared/content is absent (set HREADERD_LIBRARY_CONTENT): the copy is checked against its manifest only"),
          arguments: files + ["manifest.json", "build.py"])
    func equalsShared(_ name: String) throws {
        let source = fileBytes(Self.shared + "/" + name)
        #expect(!source.isEmpty)
        let copy = name.hasSuffix(".json") || name.hasSuffix(".py") ? fileBytes(Self.copy + "/" + name) : Gzip.decompress(fileBytes(Self.copy + "/" + name + ".gz"))
        #expect(copy == source)
    }

    @Test("the reviewed code tables name only topics of the content, by their titles")
    func codeTablesResolve() throws {
        let tables = try CodeTables(directory: PackFixture.resources + "/codes")
        #expect(tables.rows.count >= 100)
        #expect(tables.rows.allSatisfy { !$0.source.isEmpty })
        // The builder checks ids and titles; building is the test.
        _ = try PackFixture.builder(version: "1").codeRows(Dictionary(uniqueKeysWithValues: try ContentFolder(directory: Self.copy).topics.map { ($0.id, $0) }))
    }
}
