import Foundation
import Testing

/// `docs/architecture.md` is the map of the code: its module tables say, for every target of
/// `Package.swift`, what it may import. These tests read both files (and every source file's imports) and
/// fail when they disagree, so that the map cannot drift from the code again.
@Suite("The architecture page matches the package")
struct ArchitectureMapTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Modules of the platform that any target may import without declaring them.
    static let platform: Set<String> = ["FoundationEssentials", "Glibc", "Musl", "Darwin", "Dispatch", "Synchronization"]

    static func manifest() throws -> PackageManifest {
        try PackageManifest(source: String(contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8))
    }

    static func page() throws -> ArchitecturePage {
        try ArchitecturePage(markdown: String(contentsOf: repository.appendingPathComponent("docs/architecture.md"), encoding: .utf8))
    }

    @Test("every product and tool target is on the page with exactly the dependencies Package.swift gives it")
    func tablesMatchManifest() throws {
        let manifest = try Self.manifest(), page = try Self.page()
        let targets = manifest.targets.filter { $0.kind != .test && $0.name != "TestSupport" }
        #expect(!targets.isEmpty && page.rows.count >= 10, "could not read the manifest or the page")
        for target in targets {
            guard let row = page.rows[target.name] else {
                Issue.record("\(target.name) is in Package.swift but not in docs/architecture.md's tables")
                continue
            }
            #expect(row == Set(target.dependencies),
                    "\(target.name): Package.swift depends on \(target.dependencies.sorted()), the page says \(row.sorted())")
        }
        for name in page.rows.keys where !targets.contains(where: { $0.name == name }) {
            Issue.record("docs/architecture.md lists \(name), which Package.swift does not define")
        }
    }

    @Test("every source file imports only what its target declares (and the platform)")
    func importsMatchDependencies() throws {
        let manifest = try Self.manifest()
        for target in manifest.targets where target.kind != .system {
            let folder = Self.repository.appendingPathComponent(target.path)
            let allowed = Set(target.dependencies).union(Self.platform).union(target.kind == .test ? ["Testing", "XCTest", "Foundation"] : [])
                .union(target.path.hasPrefix("Tools/") ? ["Foundation"] : [])
                .union(target.name == "TestSupport" ? ["Foundation", "Testing"] : [])
            for file in Self.swiftFiles(in: folder) {
                for module in Self.imports(of: try String(contentsOf: file, encoding: .utf8)) where !allowed.contains(module) {
                    Issue.record("\(file.path.replacingOccurrences(of: Self.repository.path + "/", with: "")) imports \(module), which \(target.name) does not declare")
                }
            }
        }
    }

    @Test("the daemon's modules never import Foundation (FoundationEssentials only)")
    func noFoundationInTheDaemon() throws {
        for file in Self.swiftFiles(in: Self.repository.appendingPathComponent("Sources")) {
            let source = try String(contentsOf: file, encoding: .utf8)
            #expect(!Self.imports(of: source).contains("Foundation"), "\(file.lastPathComponent) imports Foundation")
        }
    }

    @Test("HTTPKit and Store never import each other; HealthRecord imports nothing of ours")
    func arrowsGoOneWay() throws {
        let manifest = try Self.manifest()
        let dependencies = Dictionary(uniqueKeysWithValues: manifest.targets.map { ($0.name, Set($0.dependencies)) })
        #expect(dependencies["HTTPKit"]?.contains("Store") == false && dependencies["Store"]?.contains("HTTPKit") == false)
        #expect(dependencies["HealthRecord"] == [])
        #expect(dependencies["Records"]?.isDisjoint(with: ["Store", "CSQLCipher"]) == true)
        #expect(dependencies["Modules"] == ["HealthRecord"])
    }

    @Test("the reader of the page finds rows, and a dependency missing from the page is reported")
    func checkerCatchesDrift() {
        let page = ArchitecturePage(markdown: """
            | module | owns | may import |
            |---|---|---|
            | `Store` | the store | `HealthRecord`, `CSQLCipher` |
            | `HealthRecord` | the model | nothing |
            """)
        #expect(page.rows["Store"] == ["HealthRecord", "CSQLCipher"])
        #expect(page.rows["HealthRecord"] == [])
        let manifest = PackageManifest(source: """
            .target(name: "HealthRecord"),
            .target(
                name: "Store",
                dependencies: ["HealthRecord", "CSQLCipher", "CZlib", .product(name: "Logging", package: "swift-log")]
            ),
            """)
        #expect(manifest.targets.map(\.name) == ["HealthRecord", "Store"])
        #expect(manifest.targets[1].dependencies == ["HealthRecord", "CSQLCipher", "CZlib", "Logging"])
        #expect(Set(manifest.targets[1].dependencies) != page.rows["Store"])
    }

    static func swiftFiles(in folder: URL) -> [URL] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    /// The modules a file imports (`import X`, `@testable import X`, `import struct X.Y`, …).
    static func imports(of source: String) -> Set<String> {
        var modules: Set<String> = []
        // Only lines that start at the first column: an import inside a string or a comment is indented.
        for line in source.split(separator: "\n") where line.first?.isWhitespace == false {
            var words = line.split(separator: " ").map(String.init)
            while let first = words.first, first.hasPrefix("@") && !first.contains("(") || ["public", "package", "internal", "private", "fileprivate"].contains(first) {
                words.removeFirst()
            }
            guard words.first == "import", words.count >= 2 else { continue }
            let path = ["struct", "enum", "class", "func", "protocol", "typealias", "var", "let"].contains(words[1]) && words.count >= 3 ? words[2] : words[1]
            modules.insert(String(path.split(separator: ".")[0]))
        }
        return modules
    }
}

/// The targets of `Package.swift` as its text declares them: name, kind, folder and dependencies (a
/// product dependency by its product name). Reads the manifest's plain declarative style, nothing more.
struct PackageManifest {
    enum Kind { case library, executable, test, system }
    struct Target { var name: String; var kind: Kind; var path: String; var dependencies: [String] }
    var targets: [Target] = []

    init(source: String) {
        let calls: [(String, Kind)] = [(".target(", .library), (".executableTarget(", .executable), (".testTarget(", .test), (".systemLibrary(", .system)]
        var index = source.startIndex
        while index < source.endIndex {
            guard let (range, kind) = calls.compactMap({ call in source.range(of: call.0, range: index..<source.endIndex).map { ($0, call.1) } })
                .min(by: { $0.0.lowerBound < $1.0.lowerBound }) else { break }
            let body = Self.balanced(source, from: range.upperBound, open: "(", close: ")")
            index = body.upperBound
            let text = String(source[body])
            guard let name = Self.firstString(after: "name:", in: text) else { continue }
            var dependencies: [String] = []
            if let list = text.range(of: "dependencies:"), let open = text[list.upperBound...].firstIndex(of: "[") {
                var items = String(text[Self.balanced(text, from: text.index(after: open), open: "[", close: "]")])
                // `.product(name: "Logging", package: "swift-log")` counts as its product's name.
                while let product = items.range(of: ".product(") {
                    let inner = Self.balanced(items, from: product.upperBound, open: "(", close: ")")
                    let productName = Self.firstString(after: "name:", in: String(items[inner])) ?? ""
                    items.replaceSubrange(product.lowerBound..<items.index(after: inner.upperBound), with: "\"\(productName)\"")
                }
                dependencies = Self.strings(in: items)
            }
            let path = Self.firstString(after: "path:", in: text) ?? (kind == .test ? "Tests/\(name)" : "Sources/\(name)")
            targets.append(Target(name: name, kind: kind, path: path, dependencies: dependencies))
        }
    }

    /// The text up to the bracket that closes the one opened just before `start`.
    static func balanced(_ text: String, from start: String.Index, open: Character, close: Character) -> Range<String.Index> {
        var depth = 1, index = start
        while index < text.endIndex {
            if text[index] == open { depth += 1 } else if text[index] == close { depth -= 1; if depth == 0 { break } }
            index = text.index(after: index)
        }
        return start..<index
    }

    static func firstString(after label: String, in text: String) -> String? {
        guard let at = text.range(of: label) else { return nil }
        return strings(in: String(text[at.upperBound...])).first
    }

    static func strings(in text: String) -> [String] {
        text.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }
}

/// The rows of every table on the page whose last column is headed "may import": the first column's
/// module name (in backticks) → the backticked names of the last column ("nothing" or "—" for none).
struct ArchitecturePage {
    var rows: [String: Set<String>] = [:]

    init(markdown: String) {
        var inTable = false
        for line in markdown.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard line.hasPrefix("|") else { inTable = false; continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.last?.lowercased() == "may import" { inTable = true; continue }
            guard inTable, let first = cells.first, !first.hasPrefix("---"), let last = cells.last else { continue }
            let names = Self.backticked(first)
            guard let name = names.first else { continue }
            rows[name] = Set(Self.backticked(last))
        }
    }

    static func backticked(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }
}
