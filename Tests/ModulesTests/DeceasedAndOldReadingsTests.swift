import Modules
import HealthRecord
import Testing
import TestSupport

/// The modules for a person who has died (ages stop, no advice), readings older than a year (said with
/// their age), the lab's own range, and a BMI recorded without a weight (issue 38).
@Suite("modules: a person who died, old readings, the lab's range")
struct DeceasedAndOldReadingsTests {
    static let day: Int64 = 86_400
    /// 2026-11-24T12:00:00Z.
    static let now: Int64 = 1_795_521_600
    /// 2019-05-14T00:00:00Z.
    static let died: Int64 = 1_557_792_000
    /// 1937-01-01.
    static let born: Int64 = -1_041_379_200

    static func patient(deceased: Bool) -> Patient {
        var patient = Patient.patient(gender: "F", birthdate: born)
        if deceased { (patient.deceased, patient.deceasedDate) = (true, died) }
        return patient
    }

    static func pressure(at time: Int64) -> [StoredEntry] {
        .stored([
            .entry(.vitalSign, "Systolic Blood Pressure", at: time, value: 165, units: "mm[Hg]", codes: ["LOINC": ["8480-6"]]),
            .entry(.vitalSign, "Diastolic Blood Pressure", at: time, value: 100, units: "mm[Hg]", codes: ["LOINC": ["8462-4"]]),
        ])
    }

    @Test("a person who died: the age stops at death; no module advises or asks for a reading")
    func deceased() {
        let record = ModuleRecord(patient: Self.patient(deceased: true), now: Self.now, entries: [
            .vitalSign: Self.pressure(at: Self.died - 30 * Self.day),
            .medication: .stored([.entry(.medication, "Lisinopril", start: Self.died - 900 * Self.day, status: "active")]),
        ])
        // Born 1937-01-01, died 2019-05-14: 82 years and 4 months.
        #expect(record.age.map { $0 >= 82 && $0 < 83 } == true)
        let outputs = ModuleCatalog.standard.evaluate(ModuleCatalog.standard.modules.map(\.id), record: record)
        for (module, output) in outputs {
            #expect(!output.message.contains("clinician"), "\(module.id): \(output.message)")
            #expect(!output.message.contains("Add "), "\(module.id): \(output.message)")
            #expect(!output.message.contains("Record your"), "\(module.id): \(output.message)")
        }
        let pressure = try? #require(outputs.first { $0.module.id == "blood-pressure" }?.output)
        #expect(pressure?.tile["category"]?.string == "stage_2")
        #expect(outputs.first { $0.module.id == "medications" }?.output.message == "1 active medication in the record when they died.")
        // The same record of a living person is advised.
        let living = ModuleRecord(patient: Self.patient(deceased: false), now: Self.now, entries: [.vitalSign: Self.pressure(at: Self.now - Self.day)])
        #expect(BloodPressureModule().evaluate(living, shared: SharedValues()).message.contains("Talk to a clinician"))
    }

    @Test("an empty record: a living person's modules say 'yet'; a person who died has no 'yet' to wait for")
    func nothingYet() {
        for deceased in [false, true] {
            let record = ModuleRecord(patient: Self.patient(deceased: deceased), now: Self.now, entries: [:])
            let outputs = ModuleCatalog.standard.evaluate(ModuleCatalog.standard.modules.map(\.id), record: record)
            let saysYet = outputs.filter { $0.output.message.contains(" yet") }.map(\.module.id)
            if deceased {
                #expect(saysYet.isEmpty, "\(saysYet)")
            } else {
                #expect(saysYet.contains("blood-pressure") && saysYet.contains("weight-bmi"), "\(saysYet)")
            }
        }
        let none = ModuleRecord(patient: Self.patient(deceased: true), now: Self.now, entries: [:])
        #expect(BloodPressureModule().evaluate(none, shared: SharedValues()).message == "No blood pressure recorded.")
    }

    @Test("a reading older than a year is said with its age; a recent one is not", arguments: [
        (Int64(400) * 86_400, "(13 months ago)"), (Int64(19) * 365 * 86_400 + 20 * 86_400, "(19 years ago)"), (Int64(30) * 86_400, nil),
    ] as [(Int64, String?)])
    func oldReadings(age: Int64, words: String?) {
        let record = ModuleRecord(patient: Self.patient(deceased: false), now: Self.now, entries: [.vitalSign: Self.pressure(at: Self.now - age)])
        let message = BloodPressureModule().evaluate(record, shared: SharedValues()).message
        if let words { #expect(message.contains(words), "\(message)") } else { #expect(!message.contains("ago"), "\(message)") }
    }

    @Test("glucose and cholesterol: the lab's range, converted to the module's unit, says where the value lies")
    func labRange() {
        var glucose = Entry.entry(.result, "Glucose", at: Self.now - Self.day, value: 6.3, units: "mmol/L", codes: ["LOINC": ["2345-7"]])
        glucose.referenceRange = ReferenceRange(low: .init(value: 3.9, unit: "mmol/L"), high: .init(value: 5.5, unit: "mmol/L"), text: nil)
        var hdl = Entry.entry(.result, "HDL", at: Self.now - Self.day, value: 45, units: "mg/dL", codes: ["LOINC": ["2085-9"]])
        hdl.referenceRange = ReferenceRange(low: .init(value: 50, unit: "mg/dL"), high: nil, text: nil)
        hdl.interpretation = "L"
        let record = ModuleRecord(patient: Self.patient(deceased: false), now: Self.now, entries: [.result: .stored([glucose, hdl])])
        let sugar = BloodSugarModule().evaluate(record, shared: SharedValues())
        #expect(sugar.message.contains("Above the lab's range (70.3–99.1)"), "\(sugar.message)")
        #expect(sugar.tile["glucose"]?["outside_source_range"] == .bool(true))
        #expect(sugar.tile["glucose"]?["source_range"]?["low"]?.number == 70.3)
        let lipids = CholesterolModule().evaluate(record, shared: SharedValues())
        #expect(lipids.message.contains("below the lab's range > 50"), "\(lipids.message)")
        #expect(lipids.tile["hdl"]?["outside_source_range"] == .bool(true))
        #expect(lipids.message.contains("Talk to a clinician"))
    }

    @Test("a BMI recorded without a weight gets its adult category, and a child's its percentile")
    func bmiWithoutWeight() {
        let adult = ModuleRecord(patient: Self.patient(deceased: false), now: Self.now, entries: [
            .vitalSign: .stored([.entry(.vitalSign, "Body Mass Index", at: Self.now - Self.day, value: 31.2, units: "kg/m2", codes: ["LOINC": ["39156-5"]])]),
        ])
        let output = WeightBMIModule().evaluate(adult, shared: SharedValues())
        #expect(output.tile["category"]?.string == "obesity")
        #expect(output.message.contains("BMI 31.2"))
        let childBirth = Self.now - 10 * 365 * Self.day
        let child = ModuleRecord(patient: .patient(gender: "M", birthdate: childBirth), now: Self.now, entries: [
            .vitalSign: .stored([.entry(.vitalSign, "BMI", at: Self.now - Self.day, value: 17, units: "kg/m2")]),
        ])
        let percentile = WeightBMIModule().evaluate(child, shared: SharedValues())
        #expect(percentile.tile["percentile"]?.number != nil)
        #expect(percentile.tile["category"]?.string != nil)
    }
}
