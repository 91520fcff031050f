import Foundation
import Testing
import TestSupport

/// The daemon's running path stays off Foundation's full module (ICU), FoundationNetworking and
/// FoundationXML: every source file under Sources/ imports FoundationEssentials at most.
@Suite("Lean imports")
struct LeanImportsTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    @Test("the daemon links neither ICU nor libxml2 nor libcurl: those load when a document or a sync first needs them")
    func linkedLibraries() throws {
        let ldd = try #require(which("ldd"), "ldd (libc-bin) is part of every Debian system")
        let linked = try run(ldd, [productsDirectory + "/hreaderd"])
        #expect(linked.status == 0, "\(linked.err)")
        #expect(linked.out.contains("libsqlcipher"), "the listing is the daemon's: \(linked.out)")
        for library in ["libicu", "libxml2", "libcurl", "liblzma", "libFoundationNetworking", "libFoundationXML", "libFoundation.so"] {
            #expect(!linked.out.contains(library), "\(library) is linked: \(linked.out)")
        }
    }

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
