import Foundation
import Testing

/// The daemon's running path stays off Foundation's full module (ICU), FoundationNetworking and
/// FoundationXML: every source file under Sources/ imports FoundationEssentials at most.
@Suite("Lean imports")
struct LeanImportsTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    @Test("no file of the daemon imports Foundation, FoundationNetworking or FoundationXML")
    func noFoundation() throws {
        let files = try #require(FileManager.default.enumerator(atPath: Self.sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 100)
        for file in files {
            let text = try String(contentsOfFile: Self.sources.appendingPathComponent(file).path, encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("import Foundation") || line.contains(" import Foundation") {
                #expect(line.trimmingCharacters(in: .whitespaces).hasSuffix("import FoundationEssentials"), "\(file): \(line)")
            }
        }
    }
}
