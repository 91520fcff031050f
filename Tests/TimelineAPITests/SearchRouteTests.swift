import Foundation
import HealthRecord
import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// `/search.json` and `/patients/{id}/documents.json` over HTTP: answers, pages, filters, and every
/// kind of bad request a clear 400 (never a 500).
@Suite("search and documents routes")
struct SearchRouteTests {
    static let day: Int64 = 86_400
    static func record() -> PatientRecord {
        var record = PatientRecord.record("find", name: "Fin Der", gender: "F", birthdate: 0)
        for index in 0..<45 {
            let at = 1_000_000_000 + Int64(index) * day
            record.entries.append(index % 3 == 0
                ? .entry(.immunization, "Tetanus toxoid", id: "e_\(index)", at: at, codes: ["CVX": ["09"]])
                : .entry(.result, "Serum potassium", id: "e_\(index)", at: at, codes: ["LOINC": ["2823-3"]]))
        }
        record.documents = [ClinicalDocument(id: "d1", title: "Referral note", time: 1_100_000_000, format: "ccda", sections: [
            .init(title: "Reason for referral", code: "42349-1", text: "Persistent <b>cough</b> | since March", entries: 0),
        ])]
        return record
    }

    static var patientID: String { Patient.id(sourceName: "files", recordID: "find") }

    @Test("results a page at a time, each once; filters by type and dates; snippets as marked text")
    func pages() async throws {
        try await ServedApp.with(records: [Self.record()]) { (served: ServedApp) async throws in
            var seen: [String] = []
            var cursor: String? = ""
            while let next = cursor {
                let answer = try await served.client.get("/search.json?q=potas&limit=7" + (next.isEmpty ? "" : "&cursor=\(next)"))
                #expect(answer.status == 200)
                let object = answer.object
                #expect(object["total"] as? Int == 30)
                let results = object["results"] as? [[String: Any]] ?? []
                #expect(results.count <= 7)
                seen += results.compactMap { $0["id"] as? String }
                cursor = object["next_cursor"] as? String
            }
            #expect(seen.count == 30 && Set(seen).count == 30)

            let first = try await served.client.get("/search.json?q=LOINC%202823-3&limit=1").object
            let hit = try #require((first["results"] as? [[String: Any]])?.first)
            #expect(hit["kind"] as? String == "entry" && hit["type"] as? String == "result" && hit["title"] as? String == "Serum potassium")
            let snippet = hit["snippet"] as? [[String: Any]] ?? []
            // The code is what matched: the system's name is no word of the index (see CodeValuesFunction).
            #expect(snippet.contains { $0["match"] as? Bool == true && ($0["text"] as? String) == "2823" })

            let typed = try await served.client.get("/search.json?q=tetanus&type=immunization").object
            #expect(typed["total"] as? Int == 15)
            #expect(try await served.client.get("/search.json?q=tetanus&type=result").object["total"] as? Int == 0)
            // 2001-09-09 is the first entry's day (1,000,000,000): from that day to the next, two entries.
            let ranged = try await served.client.get("/search.json?q=potassium%20OR%20tetanus&from=2001-09-09&to=2001-09-10").object
            #expect(ranged["total"] as? Int == 0, "OR is a word here, and no entry has it")
            let days = try await served.client.get("/search.json?q=serum&from=2001-09-09&to=2001-09-11").object
            #expect(days["total"] as? Int == 2)

            let section = try await served.client.get("/search.json?q=cough&type=document").object
            let found = try #require((section["results"] as? [[String: Any]])?.first)
            #expect(found["kind"] as? String == "section" && found["id"] as? String == "d1#0")
            let text = (found["snippet"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }.joined()
            #expect(text.contains("<b>"), "document text is text: \(text)")
        }
    }

    @Test("bad requests are 400 with a reason, never 500", arguments: [
        ("/search.json", "bad_query"), ("/search.json?q=", "bad_query"), ("/search.json?q=%22", "bad_query"),
        ("/search.json?q=*", "bad_query"), ("/search.json?q=" + String(repeating: "a", count: 10_000), "bad_query"),
        ("/search.json?q=a&type=banana", "bad_type"), ("/search.json?q=a&limit=0", "bad_limit"),
        ("/search.json?q=a&limit=101", "bad_limit"), ("/search.json?q=a&limit=-1", "bad_limit"),
        ("/search.json?q=a&cursor=x", "bad_cursor"), ("/search.json?q=a&cursor=99999999", "bad_cursor"),
        ("/search.json?q=a&from=yesterday", "bad_date"), ("/search.json?q=a&to=2011-02-30", "bad_date"),
    ])
    func bad(target: String, code: String) async throws {
        try await ServedApp.with(records: [Self.record()]) { (served: ServedApp) async throws in
            let answer = try await served.client.get(target)
            #expect(answer.status == 400)
            #expect((answer.object["error"] as? [String: Any])?["code"] as? String == code)
        }
    }

    @Test("hostile queries that are still words: quotes, operators, NUL bytes answer 200")
    func hostile() async throws {
        try await ServedApp.with(records: [Self.record()]) { (served: ServedApp) async throws in
            for q in ["%22potassium", "NEAR%2F3%20x", "x%20AND%20NOT%20y", "pot%00assium", "%27%29%3B%20DROP%20TABLE%20entries%3B--", "col%3Apotassium"] {
                let answer = try await served.client.get("/search.json?q=\(q)")
                #expect(answer.status == 200, "\(q): \(answer.text)")
            }
            #expect(try await served.client.get("/search.json?q=%22potassium").object["total"] as? Int == 30)
        }
    }

    @Test("an unknown patient is 404; documents are listed with their sections' text")
    func documents() async throws {
        try await ServedApp.with(records: [Self.record()]) { (served: ServedApp) async throws in
            #expect(try await served.client.get("/search.json?q=a&patient=p_nobody").status == 404)
            #expect(try await served.client.get("/patients/p_nobody/documents.json").status == 404)
            let object = try await served.client.get("/patients/\(Self.patientID)/documents.json").object
            let document = try #require((object["documents"] as? [[String: Any]])?.first)
            #expect(document["title"] as? String == "Referral note" && document["time"] as? Int == 1_100_000_000)
            let section = try #require((document["sections"] as? [[String: Any]])?.first)
            #expect(section["narrative_only"] as? Bool == true && section["text"] as? String == "Persistent <b>cough</b> | since March")
        }
    }
}
