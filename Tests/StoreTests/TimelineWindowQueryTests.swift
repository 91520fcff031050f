import Foundation
import Testing
import TestSupport
import HealthRecord
@testable import Store

@Suite("Timeline window query")
struct TimelineWindowQueryTests {
    static let window: ClosedRange<Int64> = 1_000...2_000

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let time: Int64?, start: Int64?, end: Int64?
        let inWindow: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "time inside", time: 1_500, start: nil, end: nil, inWindow: true),
        Case(name: "time on the lower bound", time: 1_000, start: nil, end: nil, inWindow: true),
        Case(name: "time on the upper bound", time: 2_000, start: nil, end: nil, inWindow: true),
        Case(name: "time one second before", time: 999, start: nil, end: nil, inWindow: false),
        Case(name: "time one second after", time: 2_001, start: nil, end: nil, inWindow: false),
        Case(name: "start inside, time before", time: 10, start: 1_200, end: nil, inWindow: true),
        Case(name: "end inside only", time: nil, start: 10, end: 1_999, inWindow: true),
        Case(name: "spanning the window without a point in it", time: nil, start: 10, end: 5_000, inWindow: false),
        Case(name: "no times at all", time: nil, start: nil, end: nil, inWindow: false),
        Case(name: "negative times before 1970", time: -5, start: nil, end: nil, inWindow: false),
    ]

    @Test("an entry is in the window when its date, start or end lies in it, bounds inclusive", arguments: cases)
    func inclusion(_ c: Case) throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        let record = PatientRecord.record("w", name: "W", entries: [
            .entry(.condition, id: "e_x", at: c.time, start: c.start, end: c.end),
        ])
        let summary = try store.importRecordSync(record)
        let found = try store.entriesSync(patientID: summary.patientID, from: Self.window.lowerBound, to: Self.window.upperBound)
        #expect(found.count == (c.inWindow ? 1 : 0))
    }

    @Test("results are sorted by date then id, and an entry matching twice is listed once")
    func ordering() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        let record = PatientRecord.record("o", name: "O", entries: [
            .entry(.result, id: "e_b", at: 1_500),
            .entry(.result, id: "e_a", at: 1_500),
            .entry(.condition, id: "e_c", start: 1_100, end: 1_900),
        ])
        let summary = try store.importRecordSync(record)
        let found = try store.entriesSync(patientID: summary.patientID, from: 1_000, to: 2_000)
        #expect(found.map(\.id) == ["e_c", "e_a", "e_b"])
        #expect(found[0].date == 1_100)
    }

    @Test("the window query is three index range scans, never a scan of the patient's entries")
    func queryPlanUsesIndexes() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        let plan = try store.readSync { db in
            try db.rows("EXPLAIN QUERY PLAN " + TimelineWindowQuery.sql, ["p", 0, 1]) { row in row.string(3) }
        }.joined(separator: "\n")
        #expect(plan.contains("entries_by_type"), "\(plan)")
        #expect(plan.contains("entries_by_start"), "\(plan)")
        #expect(plan.contains("entries_by_end"), "\(plan)")
        #expect(!plan.contains("SCAN TABLE entries\n") && !plan.hasSuffix("SCAN TABLE entries"), "\(plan)")
    }

    @Test("the timeline reads entries dated in the window and the ongoing ones from covering indexes: no table lookups, no sort")
    func coveringPlans() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        func plan(_ sql: String, _ arguments: [any DatabaseValueConvertible] = ["p", 0, 1]) throws -> String {
            try store.readSync { db in
                try db.rows("EXPLAIN QUERY PLAN " + sql, arguments) { row in row.string(3) }
            }.joined(separator: "\n")
        }
        // By type, then date (migration 15): each type's range apart, in (date, id) order, no sort.
        for (sql, arguments) in [(TimelineWindowQuery.datedInWindowSQL, ["p", 0, 1] as [any DatabaseValueConvertible]),
                                 (TimelinePartsQuery.datedPartSQL, ["p", 0, 1, "result", 0, "", 10])] {
            let dated = try plan(sql, arguments)
            #expect(dated.contains("USING COVERING INDEX entries_by_type"), "\(dated)")
            #expect(!dated.contains("TEMP B-TREE"), "\(dated)")
        }
        let spanning = try plan(TimelineWindowQuery.spanningIntoWindowSQL)
        #expect(spanning.contains("USING COVERING INDEX entries_by_start"), "\(spanning)")
        #expect(spanning.contains("USING COVERING INDEX entries_by_end"), "\(spanning)")
        let ongoing = try plan(OngoingQuery.sql)
        #expect(ongoing.contains("USING COVERING INDEX entries_ongoing"), "\(ongoing)")
        // The start and end indexes hold only entries with a start or an end (migration 12): the earliest
        // time still reads them, not the table.
        let earliest = try store.readSync { db in
            try db.rows("EXPLAIN QUERY PLAN " + Store.earliestTimeSQL, ["p"]) { row in row.string(3) }
        }.joined(separator: "\n")
        #expect(earliest.contains("USING COVERING INDEX entries_by_start"), "\(earliest)")
        #expect(earliest.contains("USING COVERING INDEX entries_by_end"), "\(earliest)")
        #expect(!earliest.contains("SCAN TABLE entries"), "\(earliest)")
    }

    @Test("the export reads each type's entries in the index's order, merged: no sort of the record in memory")
    func exportPlans() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        for type in EntryType.allCases {
            for (condition, arguments) in [(RecordExportQuery.datedCondition, ["p", 0, ""] as [any DatabaseValueConvertible]),
                                           (RecordExportQuery.undatedCondition, ["p", ""])] {
                let sql = EntriesByDateQuery.sql(columns: RecordExportQuery.columns, type: type, condition: condition)
                let plan = try store.readSync { db in
                    try db.rows("EXPLAIN QUERY PLAN " + sql, arguments) { row in row.string(3) }
                }.joined(separator: "\n")
                #expect(plan.contains("INDEX entries_by_type (patient_id=? AND type=? AND date"), "\(plan)")
                #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
            }
        }
        // A record's span and its earliest time: a seek into each type's range, never a scan.
        for sql in [EntriesByDateQuery.earliestDateSQL, EntriesByDateQuery.latestDateSQL, Store.earliestTimeSQL] {
            let plan = try store.readSync { db in
                try db.rows("EXPLAIN QUERY PLAN " + sql, ["p"]) { row in row.string(3) }
            }.joined(separator: "\n")
            #expect(plan.contains("entries_by_type"), "\(plan)")
            #expect(!plan.contains("SCAN"), "\(plan)")
        }
    }

    @Test("the timeline's read finds the same entries in the same order as the window query, spanning entries included")
    func timelineReadMatchesWindowQuery() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        let record = PatientRecord.record("spans", name: "Span Example", entries: [
            .entry(.condition, "began before, ended inside", id: "before-into", start: 500, end: 1_500),
            .entry(.condition, "inside", id: "inside", at: 1_200),
            .entry(.vitalSign, "Heart Rate", id: "inside-vital", at: 1_300, value: 70),
            .entry(.result, "after", id: "point-after", at: 2_500),
            .entry(.medication, "started inside", id: "ends-after-starts-inside", start: 1_800, end: 3_000),
            .entry(.procedure, "dated after, ends inside", id: "dated-after-ends-inside", at: 2_200, end: 1_900),
            .entry(.result, "outside", id: "outside", at: 100),
        ])
        let summary = try store.importRecordSync(record)
        let expected = try store.entriesSync(patientID: summary.patientID, from: 1_000, to: 2_000)
        #expect(expected.map(\.id) == ["before-into", "inside", "inside-vital", "ends-after-starts-inside", "dated-after-ends-inside"])
        let read = try store.readSync { db in try TimelineWindowQuery.timeline(patientID: summary.patientID, from: 1_000, to: 2_000, in: db) }
        let patient = Patient.patient(id: summary.patientID, recordID: "spans", name: "Span Example", entryCount: 7)
        let snapshot = TimelineSnapshot(patient: patient, entries: expected, ongoing: [], posts: [])
        #expect(read.sections == snapshot.sections)
        #expect(read.vitalSigns.map(\.id) == ["inside-vital"])
    }
}
