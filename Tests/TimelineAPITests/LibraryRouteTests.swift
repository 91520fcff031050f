import Foundation
import HealthRecord
import Library
import LibraryPackBuilder
import Store
import Synchronization
import Testing
import TestSupport
@testable import TimelineAPI

/// The starter pack (the project's whole content), built and installed once for the route tests, which
/// only read it.
enum StarterLibrary {
    static let directory = TemporaryDirectory("hreaderd-api-library")
    static let folder: String = {
        do {
            let key = try PackPrivateKey.generate()
            try LibraryPacks.build(version: "2025.10.1", key: key, into: directory.file("pack"))
            try LibraryPacks.install(directory.file("pack"), into: directory.file("library"), key: key)
        } catch { fatalError("cannot build the starter pack: \(error)") }
        return directory.file("library")
    }()

    static func access(updates: (any LibraryUpdates)? = nil) -> LibraryAccess {
        LibraryAccess(library: Library(directory: folder), updates: updates)
    }
}

/// An update side whose answers the test sets.
final class ScriptedUpdates: LibraryUpdates {
    let current = Mutex(LibraryUpdateStatus(publisherURL: "https://library.example/packs"))
    let starts = Atomic<Int>(0)

    func status() -> LibraryUpdateStatus { current.withLock { $0 } }

    func startUpdate() throws(LibraryUpdateRefusal) -> LibraryUpdateStatus {
        try current.withLock { (status) throws(LibraryUpdateRefusal) -> LibraryUpdateStatus in
            guard !status.isRunning else { throw .running }
            status.state = .downloading
            status.done = 0
            status.total = status.available?.bytes
            starts.add(1, ordering: .relaxed)
            return status
        }
    }
}

@Suite("the health library's routes")
struct LibraryRouteTests {
    static let recordID = "lib"
    static var patientID: String { Patient.id(sourceName: "files", recordID: recordID) }
    static let record = PatientRecord.record(recordID, entries: [
        .entry(.immunization, "Hepatitis B vaccine", id: "e_hepb", at: 1_200_000_000, codes: ["CVX": ["8"]]),
        .entry(.condition, "Diabetes mellitus type 2 (disorder)", id: "e_dm2", start: 1_100_000_000, codes: ["SNOMED-CT": ["44054006"]]),
        .entry(.condition, "asthma", id: "e_asthma", start: 1_000_000),
        .entry(.condition, "Feeling of mild unease about Tuesdays", id: "e_none", start: 1_000_000),
    ])

    @Test("/library.json: the installed pack, nothing offered, no update yet, no publisher")
    func status() async throws {
        try await ServedApp.with(library: StarterLibrary.access()) { served in
            let object = try await served.client.get("/library.json").object
            let installed = try #require(object["installed"] as? [String: Any])
            #expect(installed["version"] as? String == "2025.10.1")
            #expect(installed["topics"] as? Int == 1017 && installed["vaccines"] as? Int == 287)
            #expect(installed["source"] as? String == "test" && installed["installed_at"] is Int)
            #expect(installed["languages"] as? [String] == ["en", "fr"])
            #expect(object["available"] is NSNull)
            let update = try #require(object["update"] as? [String: Any])
            #expect(update["state"] as? String == "idle" && update["done"] as? Int == 0)
            #expect(update["total"] is NSNull && update["error"] is NSNull)
            #expect(object["publisher"] is NSNull)
        }
    }

    @Test("/library.json offers a newer pack, not one as old as the installed; POST /library/update starts it, 409 while it runs")
    func offerAndUpdate() async throws {
        let updates = ScriptedUpdates()
        try await ServedApp.with(library: StarterLibrary.access(updates: updates)) { served in
            updates.current.withLock {
                $0.available = .init(version: PackVersion("2025.10.1")!, bytes: 100, created: 0, publisher: "p")
                $0.check = .init(at: 1000, nextAt: 87_400)
            }
            var object = try await served.client.get("/library.json").object
            #expect(object["available"] is NSNull)
            let publisher = try #require(object["publisher"] as? [String: Any])
            #expect(publisher["url"] as? String == "https://library.example/packs" && publisher["next_check_at"] as? Int == 87_400)

            updates.current.withLock { $0.available = .init(version: PackVersion("2025.11")!, bytes: 3_000_000, created: 5, publisher: "p") }
            object = try await served.client.get("/library.json").object
            let available = try #require(object["available"] as? [String: Any])
            #expect(available["version"] as? String == "2025.11" && available["bytes"] as? Int == 3_000_000)

            let started = try await served.client.send("POST", "/library/update")
            #expect(started.status == 202)
            let update = try #require(started.object["update"] as? [String: Any])
            #expect(update["state"] as? String == "downloading" && update["total"] as? Int == 3_000_000)
            let again = try await served.client.send("POST", "/library/update")
            #expect(again.status == 409 && again.errorCode == "update_running")
            #expect(updates.starts.load(ordering: .relaxed) == 1)
        }
    }

    @Test("POST /library/update with no publisher configured is 409 no_publisher")
    func noPublisher() async throws {
        try await ServedApp.with(library: StarterLibrary.access()) { served in
            let response = try await served.client.send("POST", "/library/update")
            #expect(response.status == 409 && response.errorCode == "no_publisher")
        }
    }

    @Test("search finds topics with snippets and groups, best first")
    func search() async throws {
        try await ServedApp.with(library: StarterLibrary.access()) { served in
            let object = try await served.client.get("/library/search.json?q=diabetes&limit=3").object
            #expect(object["query"] as? String == "diabetes")
            let results = try #require(object["results"] as? [[String: Any]])
            #expect(results.count == 3)
            #expect(results.first?["id"] as? String == "4" && results.first?["title"] as? String == "Diabetes")
            #expect((results.first?["groups"] as? [String])?.isEmpty == false)
            let glyco = try await served.client.get("/library/search.json?q=glycohemoglobin").object
            let snippet = try #require((glyco["results"] as? [[String: Any]])?.first?["snippet"] as? [[String: Any]])
            #expect(snippet.contains { $0["match"] as? Bool == true && ($0["text"] as? String)?.lowercased() == "glycohemoglobin" })
            #expect(snippet.allSatisfy { $0["text"] is String && $0["match"] is Bool })
            let nothing = try await served.client.get("/library/search.json?q=%22%3Cscript%3E").object
            #expect((nothing["results"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("search refuses a missing, empty or oversized q and a bad limit with 400", arguments: [
        ("/library/search.json", "bad_query"), ("/library/search.json?q=", "bad_query"), ("/library/search.json?q=%20%20", "bad_query"),
        ("/library/search.json?q=" + String(repeating: "a", count: 201), "bad_query"),
        ("/library/search.json?q=flu&limit=0", "bad_limit"), ("/library/search.json?q=flu&limit=101", "bad_limit"),
        ("/library/search.json?q=flu&limit=ten", "bad_limit"),
    ])
    func badSearch(_ target: String, _ code: String) async throws {
        try await ServedApp.with(library: StarterLibrary.access()) { served in
            let response = try await served.client.get(target)
            #expect(response.status == 400 && response.errorCode == code)
        }
    }

    @Test("a topic: names, summary, groups, related topics, credit and attribution; 404 for an unknown id")
    func topic() async throws {
        try await ServedApp.with(library: StarterLibrary.access()) { served in
            let object = try await served.client.get("/library/topics/6308.json").object
            #expect(object["id"] as? String == "6308" && object["title"] as? String == "A1C")
            #expect(object["also_called"] as? [String] == ["Glycohemoglobin", "HbA1C", "Hemoglobin A1C test"])
            #expect((object["summary"] as? String)?.hasPrefix("A1C is a blood test") == true)
            #expect(object["url"] as? String == "https://medlineplus.gov/a1c.html")
            #expect(object["groups"] as? [String] == ["Diagnostic Tests", "Diabetes Mellitus"])
            #expect((object["related"] as? [[String: Any]])?.allSatisfy { $0["id"] is String && $0["title"] is String } == true)
            let attribution = try #require(object["attribution"] as? [String: Any])
            #expect(attribution["source"] as? String == "Source: MedlinePlus, National Library of Medicine")
            #expect(attribution["credit"] as? String == "NIH: National Institute of Diabetes and Digestive and Kidney Diseases")
            #expect((attribution["endorsement"] as? String)?.contains("do not endorse hreaderd") == true)
            for target in ["/library/topics/999999.json", "/library/topics/a%20b.json", "/library/topics/6308"] {
                let missing = try await served.client.get(target)
                #expect(missing.status == 404, "\(target)")
            }
            #expect(try await served.client.get("/library/topics/999999.json").errorCode == "unknown_topic")
        }
    }

    @Test("browsing by group: groups.json lists the groups with ids and counts; groups/{id}.json a group's topics; 404 otherwise")
    func groups() async throws {
        try await ServedApp.with(library: StarterLibrary.access()) { served in
            let list = try #require(try await served.client.get("/library/groups.json").object["groups"] as? [[String: Any]])
            #expect(list.count == 44)
            let tests = try #require(list.first { $0["name"] as? String == "Diagnostic Tests" })
            #expect(tests["id"] as? String == "diagnostic-tests" && tests["count"] as? Int == 18)
            let page = try await served.client.get("/library/groups/diagnostic-tests.json").object
            #expect(page["id"] as? String == "diagnostic-tests" && page["name"] as? String == "Diagnostic Tests" && page["count"] as? Int == 18)
            let topics = try #require(page["topics"] as? [[String: Any]])
            #expect(topics.count == 18 && topics.contains { $0["id"] as? String == "6308" && $0["title"] as? String == "A1C" })
            for target in ["/library/groups/no-such-group.json", "/library/groups/Diagnostic%20Tests.json", "/library/groups/diagnostic-tests",
                           "/library/groups/\(String(repeating: "a", count: LibraryRoutes.maximumGroupIDBytes + 1)).json"] {
                let missing = try await served.client.get(target)
                #expect(missing.status == 404, "\(target)")
            }
            #expect(try await served.client.get("/library/groups/no-such-group.json").errorCode == "unknown_group")
            // The longest id allowed is only looked up.
            let longest = try await served.client.get("/library/groups/\(String(repeating: "a", count: LibraryRoutes.maximumGroupIDBytes)).json")
            #expect(longest.status == 404 && longest.errorCode == "unknown_group")
        }
    }

    @Test("about an immunization: the vaccine's topic by its CVX code, and CDC's vaccine with its own attribution")
    func aboutImmunization() async throws {
        try await ServedApp.with(records: [Self.record], library: StarterLibrary.access()) { served in
            let object = try await served.client.get("/patients/\(Self.patientID)/entries/e_hepb/about.json").object
            let topics = try #require(object["topics"] as? [[String: Any]])
            #expect(topics.contains { $0["id"] as? String == "1687" && $0["title"] as? String == "Hepatitis B" })
            #expect(topics.allSatisfy { $0["match"] as? String == "code" && $0["summary"] is String })
            let vaccine = try #require(object["vaccine"] as? [String: Any])
            #expect(vaccine["code"] as? String == "08" && vaccine["short_name"] as? String == "Hep B, adolescent or pediatric")
            #expect(((vaccine["attribution"] as? [String: Any])?["source"] as? String) == "Source: CDC")
            #expect(((object["attribution"] as? [String: Any])?["source"] as? String) == "Source: MedlinePlus, National Library of Medicine")
        }
    }

    @Test("about a condition: by its SNOMED CT code, else by its name (marked so), else no topic")
    func aboutCondition() async throws {
        try await ServedApp.with(records: [Self.record], library: StarterLibrary.access()) { served in
            let coded = try await served.client.get("/patients/\(Self.patientID)/entries/e_dm2/about.json").object
            let codedTopics = try #require(coded["topics"] as? [[String: Any]])
            #expect(codedTopics.first?["id"] as? String == "5930" && codedTopics.first?["match"] as? String == "code")
            #expect(coded["vaccine"] is NSNull)
            let named = try await served.client.get("/patients/\(Self.patientID)/entries/e_asthma/about.json").object
            let namedTopics = try #require(named["topics"] as? [[String: Any]])
            #expect(namedTopics.map { $0["title"] as? String } == ["Asthma"] && namedTopics.first?["match"] as? String == "name")
            let none = try await served.client.get("/patients/\(Self.patientID)/entries/e_none/about.json").object
            #expect((none["topics"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("about an unknown patient or entry is 404")
    func aboutUnknown() async throws {
        try await ServedApp.with(records: [Self.record], library: StarterLibrary.access()) { served in
            let patient = try await served.client.get("/patients/p_nobody/entries/e_hepb/about.json")
            #expect(patient.status == 404 && patient.errorCode == "unknown_patient")
            let entry = try await served.client.get("/patients/\(Self.patientID)/entries/e_nothing/about.json")
            #expect(entry.status == 404 && entry.errorCode == "unknown_entry")
        }
    }

    @Test("the string table: English with the language asked for over it, from lang or Accept-Language; 400 for a bad tag")
    func strings() async throws {
        try await ServedApp.with(library: StarterLibrary.access()) { served in
            let french = try await served.client.get("/library/strings.json?lang=fr").object
            #expect(french["language"] as? String == "fr" && french["languages"] as? [String] == ["en", "fr"])
            let table = try #require(french["strings"] as? [String: String])
            #expect(table["library.title"] == "Bibliothèque santé")
            #expect(table["library.update.later"] == "Not now")  // not in fr.tsv: English
            let english = try await served.client.get("/library/strings.json").object
            #expect((english["strings"] as? [String: String])?.count == table.count)
            let header = try await served.client.get("/library/strings.json", headers: ["Accept-Language": "fr-CA,fr;q=0.9,en;q=0.5"]).object
            #expect(header["language"] as? String == "fr-CA")
            #expect((header["strings"] as? [String: String])?["library.title"] == "Bibliothèque santé")
            let bad = try await served.client.get("/library/strings.json?lang=%3Cb%3E")
            #expect(bad.status == 400 && bad.errorCode == "bad_lang")
        }
    }

    @Test("with no pack installed the reading routes are 503 no_library, and /library.json says installed: null")
    func noPack() async throws {
        let empty = TemporaryDirectory("hreaderd-no-library")
        try await ServedApp.with(records: [Self.record], library: LibraryAccess(library: Library(directory: empty.file("library")))) { served in
            for target in ["/library/search.json?q=flu", "/library/topics/2.json", "/library/strings.json", "/library/groups.json",
                           "/library/groups/infections.json", "/patients/\(Self.patientID)/entries/e_hepb/about.json"] {
                let response = try await served.client.get(target)
                #expect(response.status == 503 && response.errorCode == "no_library", "\(target)")
            }
            let status = try await served.client.get("/library.json")
            #expect(status.status == 200 && status.object["installed"] is NSNull)
        }
        try await ServedApp.with(records: []) { served in
            let search = try await served.client.get("/library/search.json?q=flu")
            #expect(search.status == 503 && search.errorCode == "no_library")
            let status = try await served.client.get("/library.json")
            #expect(status.object["installed"] is NSNull)
        }
    }

    @Test("the library's routes sit behind the access policy: 401 without credentials, 423 while locked")
    func accessPolicy() async throws {
        try await ServedApp.with(policy: true, library: StarterLibrary.access()) { served in
            for target in ["/library.json", "/library/search.json?q=flu", "/library/topics/2.json", "/library/strings.json",
                           "/library/groups.json"] {
                let response = try await served.client.get(target)
                #expect(response.status == 401, "\(target)")
            }
            let update = try await served.client.send("POST", "/library/update")
            #expect(update.status == 401)
        }
        try await ServedApp.with(policy: true, locked: true, library: StarterLibrary.access()) { served in
            let response = try await served.client.get("/library.json")
            #expect(response.status == 423)
        }
    }
}
