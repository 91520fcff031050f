import Foundation
import Testing
import TestSupport
import HealthRecord
@testable import Store

/// The person's own readings in the store: kept apart from imported entries, merged into the timeline's
/// vital signs by date, counted in the record's span, carried by a linked person, raising the revision.
@Suite("readings")
struct ReadingTests {
    static func record(_ id: String, name: String = "Rea Ding") -> PatientRecord {
        PatientRecord.record(id, name: name, birthdate: 0, entries: [
            .entry(.vitalSign, "Body Weight", id: "e_w1", at: 1_000_000, value: 70, units: "kg"),
            .entry(.vitalSign, "Body Weight", id: "e_w2", at: 3_000_000, value: 72, units: "kg"),
        ])
    }

    static func reading(_ patientID: String, kind: Reading.Kind = .weight, value: Double, second: Double? = nil, unit: String = "kg",
                        at time: Int64) -> Reading {
        Reading(id: "", patientID: patientID, kind: kind, takenAt: time, value: value, secondValue: second, unit: unit, createdAt: time, updatedAt: time)
    }

    @Test("a reading joins the imported vital signs of its kind, in date order, converted to the shown unit")
    func mergedByDate() async throws {
        let dir = TemporaryDirectory("readings")
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        let summary = try store.importRecordSync(Self.record("r1"))
        let before = try #require(try await store.timelineHead(patientID: summary.patientID, withEarliest: false)).revision
        let pounds = try await store.addReading(Self.reading(summary.patientID, value: 160, unit: "lb", at: 2_000_000))
        #expect(pounds.id.hasPrefix("r_"))
        let after = try #require(try await store.timelineHead(patientID: summary.patientID, withEarliest: false)).revision
        #expect(after > before)

        let snapshot = try #require(try await store.timelineSnapshot(patientID: summary.patientID, from: 0, to: 4_000_000))
        #expect(snapshot.vitalSigns.map(\.id) == ["e_w1", pounds.id, "e_w2"])
        #expect(abs((snapshot.vitalSigns[1].value ?? 0) - 72.57) < 0.01)
        #expect(snapshot.vitalSigns[1].units == "kg")
        #expect(snapshot.vitalSigns[1].description == "Body Weight")
        #expect(snapshot.readings == [pounds])

        let outside = try #require(try await store.timelineSnapshot(patientID: summary.patientID, from: 2_500_000, to: 4_000_000))
        #expect(outside.readings.isEmpty)
        #expect(outside.vitalSigns.map(\.id) == ["e_w2"])
    }

    @Test("a blood pressure reading is two vital signs, systolic and diastolic, under one id")
    func bloodPressurePair() {
        let reading = Self.reading("p", kind: .bloodPressure, value: 128, second: 82, unit: "mm[Hg]", at: 5)
        #expect(reading.vitalSigns.map(\.description) == ["Systolic Blood Pressure", "Diastolic Blood Pressure"])
        #expect(reading.vitalSigns.map(\.value) == [128, 82])
    }

    @Test("the record's earliest time counts readings (the all page starts there)")
    func earliestCountsReadings() async throws {
        let dir = TemporaryDirectory("readings")
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        let summary = try store.importRecordSync(Self.record("r1"))
        _ = try await store.addReading(Self.reading(summary.patientID, value: 50, at: 10))
        #expect(try await store.timelineHead(patientID: summary.patientID, withEarliest: true)?.earliest == 10)
    }

    @Test("a linked person's timeline and readings hold every member's readings")
    func linkedPerson() async throws {
        let dir = TemporaryDirectory("readings")
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        let a = try store.importRecordSync(Self.record("a")).patientID
        let b = try store.importRecordSync(Self.record("b", name: "Rea Ding")).patientID
        let onB = try await store.addReading(Self.reading(b, value: 71, at: 2_000_000))
        _ = try await store.linkPatient(b, into: a)
        #expect(try await store.readings(patientID: a) == [onB])
        let head = try #require(try await store.timelineHead(patientID: a, withEarliest: false))
        let snapshot = try #require(try await store.timelineSnapshot(patientID: head.patientID, members: head.members, from: 0, to: 4_000_000))
        #expect(snapshot.readings == [onB])
        #expect(snapshot.vitalSigns.contains { $0.id == onB.id })
    }

    @Test("edit and delete: unknown ids answer nil and false; a reading's patient must exist")
    func editAndDelete() async throws {
        let dir = TemporaryDirectory("readings")
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        let patientID = try store.importRecordSync(Self.record("r1")).patientID
        var reading = try await store.addReading(Self.reading(patientID, value: 70, at: 100))
        reading.value = 69
        reading.note = "morning"
        #expect(try await store.updateReading(reading)?.note == "morning")
        #expect(try await store.reading(id: reading.id)?.value == 69)
        var missing = reading
        missing.id = "r_missing"
        #expect(try await store.updateReading(missing) == nil)
        #expect(try await store.deleteReading(id: reading.id))
        #expect(try await !store.deleteReading(id: reading.id))
        await #expect(throws: StoreError.self) { try await store.addReading(Self.reading("p_nobody", value: 70, at: 100)) }
    }

    @Test("the module choice is kept on the person, set, read, and forgotten")
    func moduleChoice() async throws {
        let dir = TemporaryDirectory("readings")
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        let patientID = try store.importRecordSync(Self.record("r1")).patientID
        #expect(try await store.moduleChoice(patientID: patientID) == nil)
        try await store.setModuleChoice(patientID: patientID, modules: ["weight-bmi", "feelings"], now: 1)
        #expect(try await store.moduleChoice(patientID: patientID) == ["weight-bmi", "feelings"])
        try await store.setModuleChoice(patientID: patientID, modules: [], now: 2)
        #expect(try await store.moduleChoice(patientID: patientID) == [])
        try await store.setModuleChoice(patientID: patientID, modules: nil, now: 3)
        #expect(try await store.moduleChoice(patientID: patientID) == nil)
        await #expect(throws: StoreError.self) { try await store.moduleChoice(patientID: "p_nobody") }
    }
}
