import Foundation
import HealthRecord
@testable import Library
import LibraryPackBuilder
import Store
import Testing
import TestSupport

/// A library folder with the starter pack installed, shared by the reading tests (they only read).
enum InstalledStarter {
    static let directory = TemporaryDirectory("hreaderd-library-installed")
    static let library: Library = {
        do {
            try LibraryInstaller(directory: directory.file("library"), trust: PackFixture.shared.trust)
                .install(folder: PackFixture.shared.folder, source: "bundled")
        } catch { fatalError("\(error)") }
        return Library(directory: directory.file("library"))
    }()
}

@Suite("Reading the library: topics, search, strings")
struct LibraryReaderTests {
    let library = InstalledStarter.library

    @Test("the groups: 44 MedlinePlus groups by name with their counts; a group's topics by title; nil for an unknown id")
    func groups() throws {
        let groups = try library.groups()
        #expect(groups.count == 44)
        #expect(groups.map(\.name) == groups.map(\.name).sorted { $0.lowercased() < $1.lowercased() })
        let tests = try #require(groups.first { $0.name == "Diagnostic Tests" })
        #expect(tests.id == "diagnostic-tests" && tests.count == 18)
        #expect(groups.first { $0.name == "Genetics/Birth Defects" }?.id == "genetics-birth-defects")
        let page = try #require(try library.group(id: "diagnostic-tests"))
        #expect(page.group == tests && page.topics.count == 18)
        #expect(page.topics.contains(TopicReference(id: "6308", title: "A1C")))
        #expect(page.topics.map { $0.title.lowercased() } == page.topics.map { $0.title.lowercased() }.sorted())
        #expect(try library.group(id: "no-such-group") == nil)
        #expect(try library.group(id: "") == nil)
    }

    @Test("a group's id from its name: lower case, letters and digits, one dash between words", arguments: [
        ("Blood, Heart and Circulation", "blood-heart-and-circulation"), ("Genetics/Birth Defects", "genetics-birth-defects"),
        ("  Poisoning, Toxicology, Environmental Health ", "poisoning-toxicology-environmental-health"),
        ("Santé des Femmes", "santé-des-femmes"), ("<b>", "b"), ("///", ""),
    ])
    func groupID(name: String, id: String) {
        #expect(TopicGroup.id(name: name) == id)
    }

    @Test("a topic comes with its names, summary, groups, related topics and attribution")
    func topic() throws {
        let topic = try #require(try library.topic(id: "6308"))
        #expect(topic.title == "A1C" && topic.alsoCalled == ["Glycohemoglobin", "HbA1C", "Hemoglobin A1C test"])
        #expect(topic.summary.hasPrefix("A1C is a blood test for type 2 diabetes and prediabetes."))
        #expect(topic.groups == ["Diagnostic Tests", "Diabetes Mellitus"] && topic.url == "https://medlineplus.gov/a1c.html")
        #expect(topic.credit == "NIH: National Institute of Diabetes and Digestive and Kidney Diseases")
        #expect(topic.attribution.lines == ["Source: MedlinePlus, National Library of Medicine",
                                            "Credit: NIH: National Institute of Diabetes and Digestive and Kidney Diseases",
                                            "MedlinePlus and the National Library of Medicine do not endorse hreaderd."])
        let asthma = try #require(try library.topic(id: "2"))
        #expect(asthma.related.contains(TopicReference(id: "1507", title: "Asthma in Children")))
        #expect(try library.topic(id: "no-such-topic") == nil)
        #expect(try library.topic(id: "' OR 1=1 --") == nil)
    }

    @Test("search finds topics by title, also-called name and summary, best first, with snippets")
    func search() throws {
        let start = ContinuousClock.now
        let diabetes = try library.search("diabetes", limit: 10)
        print("search \"diabetes\": \(diabetes.count) hits in \(Int(PackFixture.milliseconds(since: start))) ms (debug build)")
        #expect(diabetes.first?.topic == TopicReference(id: "4", title: "Diabetes"))
        #expect(diabetes.count == 10)
        #expect(try library.search("hypertension").first?.topic.title == "High Blood Pressure")
        #expect(try library.search("HbA1c").first?.topic.title == "A1C")
        #expect(try library.search("diab", limit: 5).contains { $0.topic.title == "Diabetes" })
        #expect(try library.search("Alzheimer's").first?.topic.title == "Alzheimer's Disease")
        #expect(try library.search("crème brûlée flu").isEmpty)
        let snippet = try #require(try library.search("glycohemoglobin").first?.snippet)
        #expect(snippet.parts.contains { $0.isMatch && $0.text.lowercased() == "glycohemoglobin" })
    }

    @Test("a query is words, never FTS syntax: quotes, operators and markup find nothing or plain words", arguments: [
        "\"", "*", "NEAR", "diabetes OR", "-asthma", "title:asthma", "(", "<script>alert(1)</script>", "asthma\" OR \"x", "", "   ", "'; DROP TABLE topics; --",
    ])
    func hostileQueries(_ query: String) throws {
        _ = try library.search(query)
    }

    @Test("the string table in a language, English for the keys it lacks")
    func strings() throws {
        let english = try library.strings(language: "en")
        #expect(english["library.source.medlineplus"] == "Source: MedlinePlus, National Library of Medicine")
        #expect(english.count >= 30)
        let french = try library.strings(language: "fr")
        #expect(french["library.title"] == "Bibliothèque santé")
        #expect(french["library.update.later"] == "Not now")  // not in fr.tsv
        #expect(french.count == english.count)
        #expect(try library.strings(language: "fr-CA")["library.title"] == "Bibliothèque santé")
        #expect(try library.strings(language: "de") == english)
    }

    @Test("a vaccine by its CVX code, as CDC describes it")
    func vaccine() throws {
        let hepB = try #require(try library.vaccine(code: "8"))
        #expect(hepB.code == "08" && hepB.shortName == "Hep B, adolescent or pediatric" && hepB.groups.first?.code == "45")
        #expect(hepB.attribution.source == "Source: CDC")
    }

    @Test("the connection opens on first use and closes when idle")
    func idle() throws {
        _ = try library.topic(id: "2")
        #expect(!library.closeIfIdle(seconds: 3600))
        #expect(library.closeIfIdle(seconds: 0))
        #expect(try library.topic(id: "2")?.title == "Asthma")
    }
}

@Suite("Publisher text is kept as text")
struct HostileContentTests {
    static let summary = #"<script>alert("x")</script> Sugar & <b>salt</b> <img src=x onerror=alert(1)> ""#

    @Test("markup in a summary comes back unchanged from the topic and as plain text in a snippet")
    func markupIsText() throws {
        let scratch = TemporaryDirectory()
        var content = try ContentFolder(directory: PackFixture.resources + "/content")
        content.topics = content.topics.filter { ["294", "2", "6308"].contains($0.id) }.map { topic in
            var topic = topic
            topic.related = []
            if topic.id == "2" { topic.summary_text = Self.summary; topic.title = "Asthma <i>&amp;</i>" }
            return topic
        }
        content.crosswalk = []
        content.vaccines = Array(content.vaccines.prefix(3))
        let key = try PackPrivateKey.generate()
        _ = try PackBuilder(content: content, codeTables: CodeTables(rows: []), strings: StringTables(strings: ["en": ["k": "<b>bold</b>"]]),
                            version: PackVersion("1")!, created: 0).build(into: scratch.file("pack"), key: key)
        try LibraryInstaller(directory: scratch.file("library"), trust: .signature([key.publicKey])).install(folder: scratch.file("pack"), source: "test")
        let library = Library(directory: scratch.file("library"))
        let topic = try #require(try library.topic(id: "2"))
        #expect(topic.summary == Self.summary)
        #expect(topic.title == "Asthma <i>&amp;</i>")
        let hit = try #require(try library.search("salt").first)
        #expect(hit.topic.title == "Asthma <i>&amp;</i>")
        #expect(hit.snippet.text.contains("<b>"))
        #expect(hit.snippet.parts.contains { $0.isMatch && $0.text == "salt" })
        #expect(try library.strings(language: "en")["k"] == "<b>bold</b>")
        let entry = Entry(id: "e", type: .condition, description: "Asthma <i>&amp;</i>")
        #expect(try library.about(entry).topics.map(\.topic.id) == ["2"])
    }

    @Test("control characters in the publisher's text are refused when the pack is built")
    func controlCharacters() throws {
        var content = try ContentFolder(directory: PackFixture.resources + "/content")
        content.topics[0].summary_text += "\u{2}"
        let builder = PackBuilder(content: content, codeTables: CodeTables(rows: []), strings: StringTables(strings: [:]), version: PackVersion("1")!, created: 0)
        #expect(throws: BuildError.self) { try builder.build(into: TemporaryDirectory().file("pack"), key: PackPrivateKey.generate()) }
    }
}
