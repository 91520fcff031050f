import Foundation
import Records
import HealthRecord
import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// The timeline contract checked against hReader's own bundled patient, Henry Smith, with
/// `end=2011-01-01`: every expectation is computed from the source file itself (with Foundation's JSON
/// reader and the inclusion rule of docs/api.md), not from our parser.
@Suite("Timeline contract: Henry Smith", .enabled(if: SharedSamples.available, SharedSamples.skipReason))
struct HenrySmithContractTests {
    static let end: Int64 = 1_293_926_399 // 2011-01-01T23:59:59Z
    static let starts: [TimelinePage: Int64] = [
        .day: 1_293_839_999, .week: 1_293_321_599, .month: 1_291_247_999, .year: 1_262_390_399, .decade: 978_393_599,
    ]
    static let arrays = ["allergies": "allergies", "conditions": "conditions", "results": "results", "encounters": "encounters",
                         "immunizations": "immunizations", "medications": "medications", "procedures": "procedures"]

    /// The source record, read independently.
    struct Source {
        let json: [String: Any]

        init() throws {
            let data = try Data(contentsOf: URL(fileURLWithPath: SharedSamples.path("hreader_hs_henry_smith.json")))
            json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }

        func section(_ name: String) -> [[String: Any]] { json[name] as? [[String: Any]] ?? [] }

        static func time(_ entry: [String: Any], _ key: String) -> Int64? { (entry[key] as? NSNumber)?.int64Value }
        static func date(_ entry: [String: Any]) -> Int64? { time(entry, "time") ?? time(entry, "start_time") ?? time(entry, "end_time") }

        /// docs/api.md: in the window when its date, start or end lies in it, bounds inclusive.
        static func inWindow(_ entry: [String: Any], _ start: Int64, _ end: Int64) -> Bool {
            [date(entry), time(entry, "start_time"), time(entry, "end_time")].contains { $0.map { (start...end).contains($0) } ?? false }
        }

        var earliest: Int64 {
            var all: [Int64] = []
            for name in ["allergies", "conditions", "results", "encounters", "immunizations", "medications", "procedures", "vital_signs"] {
                for entry in section(name) {
                    all += [Self.time(entry, "time"), Self.time(entry, "start_time"), Self.time(entry, "end_time")].compactMap { $0 }
                }
            }
            return all.min() ?? 0
        }

        static func scalar(_ entry: [String: Any]) -> Double? {
            guard let value = entry["value"] as? [String: Any] else { return nil }
            if let number = value["scalar"] as? NSNumber { return number.doubleValue }
            if let text = value["scalar"] as? String { return Double(text) }
            return nil
        }
    }

    static func record() throws -> PatientRecord {
        try RecordParser().parse(try SharedSamples.bytes("hreader_hs_henry_smith.json"))
    }

    @Test("each page has the window of docs/api.md and exactly the source's entries in it, sorted by date",
          arguments: TimelinePage.allCases)
    func page(_ page: TimelinePage) async throws {
        let source = try Source()
        try await ServedApp.with(records: [try Self.record()]) { served in
            let response = try await served.client.get("/timeline.json?page=\(page.rawValue)&end=2011-01-01")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json; charset=utf-8")
            #expect(response.header("Cache-Control") == "no-store")
            let json = response.object
            let start = page == .all ? source.earliest : Self.starts[page]!
            #expect(json["start_date"] as? Int64 == start)
            #expect(json["end_date"] as? Int64 == Self.end)
            for (key, section) in Self.arrays {
                let expected = source.section(section).filter { Source.inWindow($0, start, Self.end) }
                let actual = json[key] as? [[String: Any]]
                if expected.isEmpty {
                    #expect(actual == nil, "\(key) must be absent when empty (page \(page))")
                    continue
                }
                let entries = try #require(actual, "\(key) missing on page \(page)")
                #expect(entries.count == expected.count, "\(key) on page \(page)")
                let dates = entries.map { ($0["date"] as? NSNumber)?.int64Value }
                #expect(dates == expected.compactMap(Source.date).sorted().map { Optional($0) }, "\(key) dates on page \(page)")
                #expect(Set(entries.compactMap { $0["description"] as? String }) == Set(expected.compactMap { $0["description"] as? String }))
                #expect(Set(entries.compactMap { $0["id"] as? String }).count == entries.count, "ids are unique")
            }
        }
    }

    @Test("result values are the source's scalars as numbers")
    func resultValues() async throws {
        let source = try Source()
        try await ServedApp.with(records: [try Self.record()]) { served in
            let json = try await served.client.get("/timeline.json?page=all&end=2011-01-01").object
            let results = try #require(json["results"] as? [[String: Any]])
            let expected = source.section("results").filter { Source.inWindow($0, source.earliest, Self.end) }
            // Match by description and date: the pairs must carry the same values.
            func key(_ description: Any?, _ date: Int64?) -> String { "\(description ?? "")@\(date ?? 0)" }
            var expectedValues: [String: [Double?]] = [:]
            for e in expected { expectedValues[key(e["description"], Source.date(e)), default: []].append(Source.scalar(e)) }
            var actualValues: [String: [Double?]] = [:]
            for r in results {
                let measurement = r["measurement"] as? [String: Any]
                actualValues[key(r["description"], (r["date"] as? NSNumber)?.int64Value), default: []]
                    .append((measurement?["value"] as? NSNumber)?.doubleValue)
            }
            #expect(actualValues.mapValues { $0.sorted { ($0 ?? -1) < ($1 ?? -1) } } == expectedValues.mapValues { $0.sorted { ($0 ?? -1) < ($1 ?? -1) } })
            // A spot value, read off the file: the PSA test of 2010-07-20 is 6.3.
            #expect(results.contains { ($0["description"] as? String) == "Prostate Specific Antigen Test"
                && (($0["measurement"] as? [String: Any])?["value"] as? NSNumber)?.doubleValue == 6.3 })
        }
    }

    @Test("vitals are grouped by description with values, dates and ids in date order; blood pressure last",
          arguments: [TimelinePage.year, .decade, .all])
    func vitals(_ page: TimelinePage) async throws {
        let source = try Source()
        try await ServedApp.with(records: [try Self.record()]) { served in
            let json = try await served.client.get("/timeline.json?page=\(page.rawValue)&end=2011-01-01").object
            let start = page == .all ? source.earliest : Self.starts[page]!
            let readings = source.section("vital_signs").filter { Source.inWindow($0, start, Self.end) && Source.scalar($0) != nil }
                .sorted { (Source.date($0) ?? 0) < (Source.date($1) ?? 0) }
            var expected: [String: [(Int64, Double)]] = [:]
            for r in readings { expected[r["description"] as? String ?? "", default: []].append((Source.date(r)!, Source.scalar(r)!)) }
            let groups = try #require(json["vitals"] as? [[String: Any]])
            #expect(groups.count == expected.count)
            for group in groups {
                let description = try #require(group["description"] as? String)
                let values = (group["values"] as? [NSNumber])?.map(\.doubleValue) ?? []
                let dates = (group["dates"] as? [NSNumber])?.map(\.int64Value) ?? []
                let ids = group["ids"] as? [String] ?? []
                let want = expected[description] ?? []
                #expect(dates == want.map(\.0), "dates of \(description)")
                // Within 1e-12 relative: Foundation's JSONSerialization on Linux misreads the last digit of some
                // decimals (22.466216216216218), which our parser reads exactly.
                let sortedValues = values.sorted(), wanted = want.map(\.1).sorted()
                #expect(sortedValues.count == wanted.count && zip(sortedValues, wanted).allSatisfy { abs($0 - $1) <= 1e-12 * max(1, abs($1)) },
                        "values of \(description): \(sortedValues) vs \(wanted)")
                #expect(dates == dates.sorted())
                #expect(ids.count == values.count && Set(ids).count == ids.count)
            }
            let names = groups.compactMap { $0["description"] as? String }
            let pressure = names.filter { $0.lowercased().contains("blood pressure") }
            if !pressure.isEmpty {
                #expect(Array(names.suffix(pressure.count)) == pressure, "blood pressure groups come last: \(names)")
                if let s = names.firstIndex(where: { $0.lowercased().contains("systolic") }),
                   let d = names.firstIndex(where: { $0.lowercased().contains("diastolic") }) {
                    #expect(s < d)
                }
                #expect(names.dropLast(pressure.count) == names.dropLast(pressure.count).sorted())
            }
        }
    }

    @Test("a condition diagnosed before the window and never resolved is ongoing")
    func ongoing() async throws {
        try await ServedApp.with(records: [try Self.record()]) { served in
            let json = try await served.client.get("/timeline.json?page=day&end=2011-01-01").object
            let ongoing = try #require(json["ongoing"] as? [[String: Any]])
            let names = Set(ongoing.compactMap { $0["description"] as? String })
            // Prostate Cancer: start_time 1273204800 (2010-05-07), no end, no status.
            #expect(names.contains("Prostate Cancer"))
            // Medications that started before the day and have no end: Lisinopril (start 2010-06-25).
            #expect(names.contains("Lisinopril"))
            #expect(ongoing.allSatisfy { ["condition", "medication", "allergy"].contains($0["type"] as? String ?? "") })
        }
    }
}
