import Modules
import HealthRecord
import Testing
import TestSupport

/// The modules over small records: what each tile carries, what each message says, and the protocol (a
/// module added here, in the test target, appears and gets other modules' values without touching them).
@Suite("modules")
struct ModuleTests {
    static let day: Int64 = 86_400
    /// 2026-11-24T12:00:00Z.
    static let now: Int64 = 1_795_521_600

    static func reading(_ kind: Reading.Kind, _ value: Double, _ second: Double? = nil, unit: String? = nil, at date: Int64,
                        context: Reading.Context? = nil) -> Reading {
        Reading(id: "r_\(kind.rawValue)_\(date)", patientID: "p_test", kind: kind, takenAt: date, value: value, secondValue: second,
                unit: unit ?? kind.units[0], context: context, createdAt: date, updatedAt: date)
    }

    /// A birth date `months` completed months (and 10 days) before `now`.
    static func born(monthsAgo months: Int64) -> Int64 {
        // 2026-11-14 minus `months` months, at noon UTC: computed by walking the calendar by hand.
        var year: Int64 = 2026, month: Int64 = 11
        month -= months % 12
        year -= months / 12
        if month < 1 { month += 12; year -= 1 }
        return epoch(year: year, month: month, day: 14)
    }

    /// Noon UTC of a day.
    static func epoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        CivilDate.epochDays(year: year, month: month, day: day) * Self.day + 43_200
    }

    static func evaluate(_ module: some SummaryModule, _ record: ModuleRecord) -> ModuleOutput {
        module.evaluate(record, shared: SharedValues())
    }

    // MARK: blood pressure

    @Test("blood pressure: the latest reading and the average of the last three, each categorised; the message names the guideline")
    func bloodPressure() {
        let record = ModuleRecord(patient: .patient(birthdate: 0), now: Self.now, entries: [.vitalSign: .stored([
            .entry(.vitalSign, "Systolic Blood Pressure", at: Self.now - 30 * Self.day, value: 150, units: "mm[Hg]", codes: ["LOINC": ["8480-6"]]),
            .entry(.vitalSign, "Diastolic Blood Pressure", at: Self.now - 30 * Self.day, value: 95, units: "mm[Hg]", codes: ["LOINC": ["8462-4"]]),
            .entry(.vitalSign, "BP Systolic", at: Self.now - 20 * Self.day, value: 140, units: "mm[Hg]"),
            .entry(.vitalSign, "BP Diastolic", at: Self.now - 20 * Self.day, value: 88, units: "mm[Hg]"),
        ])], readings: [Self.reading(.bloodPressure, 118, 76, at: Self.now - Self.day)])
        let output = Self.evaluate(BloodPressureModule(), record)
        #expect(output.tile["latest"]?["systolic"]?.number == 118)
        #expect(output.tile["latest"]?["diastolic"]?.number == 76)
        #expect(output.tile["latest"]?["self_reported"] == .bool(true))
        #expect(output.tile["category"]?.string == "normal")
        // (150 + 140 + 118) / 3 = 136, (95 + 88 + 76) / 3 = 86.3: stage 1.
        #expect(output.tile["average"]?["systolic"]?.number == 136)
        #expect(output.tile["average"]?["category"]?.string == "stage_1")
        #expect(output.tile["readings"]?.array?.count == 3)
        #expect(output.message.contains("Latest 118/76"))
        #expect(output.message.contains("stage 1 hypertension"))
        #expect(output.message.contains("Talk to a clinician"))
        #expect(output.message.contains("2017 ACC/AHA"))
    }

    @Test("blood pressure: a severe reading asks for prompt care; none at all says so")
    func bloodPressureSevereAndNone() {
        let severe = ModuleRecord(patient: .patient(birthdate: 0), now: Self.now, readings: [Self.reading(.bloodPressure, 181, 100, at: Self.now)])
        let output = Self.evaluate(BloodPressureModule(), severe)
        #expect(output.tile["category"]?.string == "severe")
        #expect(output.message.contains("contact a clinician now"))
        let none = Self.evaluate(BloodPressureModule(), ModuleRecord(patient: .patient(), now: Self.now))
        #expect(none.tile["latest"] == .null)
        #expect(none.message.contains("No blood pressure"))
    }

    // MARK: weight and BMI

    @Test("weight and BMI: an adult's category from kilograms and centimetres; pounds and inches converted")
    func adultBMI() throws {
        let record = ModuleRecord(patient: .patient(birthdate: Self.born(monthsAgo: 40 * 12)), now: Self.now,
                                  readings: [Self.reading(.height, 70, unit: "in", at: Self.now - 400 * Self.day),
                                             Self.reading(.weight, 180, unit: "lb", at: Self.now - Self.day)])
        let output = Self.evaluate(WeightBMIModule(), record)
        // 81.65 kg / 1.778² = 25.8.
        #expect(output.tile["latest"]?["bmi"]?.number == 25.8)
        #expect(output.tile["latest"]?["weight"]?.number == 81.6)
        #expect(output.tile["latest"]?["height"]?.number == 177.8)
        #expect(output.tile["category"]?.string == "overweight")
        #expect(output.tile["percentile"] == nil)
        #expect(output.message.contains("CDC adult BMI"))
        #expect(abs(try #require(output.offered["weight-bmi.bmi"]) - 25.83) < 0.01)
    }

    /// Ages 1.9, 2.0, 20.0 and 20.1 years at the time of the weight: no BMI category, the percentile, the
    /// percentile, adult categories.
    @Test("weight and BMI: percentile for ages 2.0 to 20.0, not at 1.9 or 20.1", arguments: [
        (Int64(22), "none"), (24, "percentile"), (240, "percentile"), (241, "adult"),
    ])
    func bmiAgeEdges(months: Int64, expected: String) {
        let record = ModuleRecord(patient: .patient(gender: "M", birthdate: Self.born(monthsAgo: months)), now: Self.now,
                                  readings: [Self.reading(.height, 90, at: Self.now - 3600), Self.reading(.weight, 14, at: Self.now)])
        let output = Self.evaluate(WeightBMIModule(), record)
        switch expected {
        case "none":
            #expect(output.tile["percentile"] == nil)
            #expect(output.tile["category"] == .null)
            #expect(output.message.contains("applies from age 2"))
        case "percentile":
            #expect(output.tile["percentile"]?.number != nil)
            #expect(output.message.contains("CDC 2000 BMI-for-age"))
        default:
            #expect(output.tile["percentile"] == nil)
            // 14 kg / 0.9² m² = 17.3: adult categories, underweight.
            #expect(output.tile["category"]?.string == "underweight")
            #expect(output.message.contains("CDC adult BMI"))
        }
    }

    @Test("weight and BMI: the growth README's boy of 10 years, BMI 18, is at the 72.1st percentile, healthy weight")
    func childPercentile() {
        // 10 years 0 months: 120 completed months. Height 150 cm, weight 40.5 kg: BMI 18.0.
        let record = ModuleRecord(patient: .patient(gender: "M", birthdate: Self.born(monthsAgo: 120)), now: Self.now,
                                  entries: [.vitalSign: .stored([
                                      .entry(.vitalSign, "Body Height", at: Self.now - 60, value: 150, units: "cm", codes: ["LOINC": ["8302-2"]]),
                                      .entry(.vitalSign, "Body Weight", at: Self.now, value: 40.5, units: "kg", codes: ["LOINC": ["29463-7"]]),
                                  ])])
        let output = Self.evaluate(WeightBMIModule(), record)
        #expect(output.tile["latest"]?["bmi"]?.number == 18)
        #expect(output.tile["percentile"]?.number == 72.1)
        #expect(output.tile["category"]?.string == "healthy")
    }

    @Test("a height alone is shown, and asks for a weight; an allergy that names nothing is not listed")
    func heightAlone() {
        let record = ModuleRecord(patient: .patient(birthdate: 0), now: Self.now, readings: [Self.reading(.height, 180, at: Self.now)])
        let output = Self.evaluate(WeightBMIModule(), record)
        #expect(output.tile["latest"]?["height"]?.number == 180)
        #expect(output.tile["latest"]?["bmi"] == .null)
        #expect(output.message.contains("Add a weight"))
        let empty = Entry.entry(.allergy, id: "e_x").stored
        let allergies = Self.evaluate(ProblemsAllergiesModule(), ModuleRecord(patient: .patient(), now: Self.now, entries: [.allergy: [empty]]))
        #expect(allergies.tile["allergies"]?.array?.isEmpty == true)
    }

    @Test("weight: a month without one says so (SelfHub's nudge)")
    func staleWeight() {
        let record = ModuleRecord(patient: .patient(birthdate: 0), now: Self.now, readings: [Self.reading(.weight, 70, at: Self.now - 90 * Self.day)])
        #expect(Self.evaluate(WeightBMIModule(), record).message.contains("No weight recorded for 3 months"))
    }

    // MARK: blood sugar, cholesterol

    @Test("blood sugar: a fasting reading by the fasting ranges, HbA1c by its own, the message names the ADA")
    func bloodSugar() {
        let record = ModuleRecord(patient: .patient(birthdate: 0), now: Self.now, entries: [.result: .stored([
            .entry(.result, "Hemoglobin A1c", id: "e_a1c", at: Self.now - 10 * Self.day, value: 5.8, units: "%", codes: ["LOINC": ["4548-4"]]),
        ])], readings: [Self.reading(.glucose, 6.0, unit: "mmol/L", at: Self.now, context: .fasting)])
        let output = Self.evaluate(BloodSugarModule(), record)
        // 6.0 mmol/L = 108 mg/dL fasting: prediabetes range.
        #expect(output.tile["glucose"]?["value"]?.number == 108)
        #expect(output.tile["glucose"]?["range"]?.string == "prediabetes")
        #expect(output.tile["hba1c"]?["range"]?.string == "prediabetes")
        #expect(output.message.contains("ADA Standards of Care"))
        #expect(output.message.contains("Talk to a clinician"))
    }

    @Test("cholesterol: the latest of each lipid, by LOINC or by name, in mmol/L converted")
    func cholesterol() {
        let record = ModuleRecord(patient: .patient(birthdate: 0), now: Self.now, entries: [.result: .stored([
            .entry(.result, "Cholesterol [Mass/volume] in Serum or Plasma", id: "e_1", at: Self.now, value: 245, units: "mg/dL",
                   codes: ["LOINC": ["2093-3"]]),
            .entry(.result, "HDL Cholesterol", id: "e_2", at: Self.now, value: 0.9, units: "mmol/L"),
        ])])
        let output = Self.evaluate(CholesterolModule(), record)
        #expect(output.tile["total"]?["range"]?.string == "high")
        #expect(output.tile["hdl"]?["value"]?.number == 35)
        #expect(output.tile["hdl"]?["range"]?.string == "low")
        #expect(output.tile["ldl"] == .null)
        #expect(output.message.contains("NCEP ATP III"))
    }

    // MARK: feelings, immunizations, problems and allergies, medications

    @Test("feelings: each level's latest and trend from the posted levels")
    func feelings() {
        let posts = [2, 3, 3, 6, 7, 8].enumerated().map { index, pain in
            TimelinePost(id: "t_\(index)", patientID: "p_test", kind: .levels, createdAt: Self.now - Int64(6 - index) * Self.day,
                         dataJSON: #"{"pain":"\#(pain)","mood":"5"}"#)
        }
        let output = Self.evaluate(FeelingsModule(), ModuleRecord(patient: .patient(), now: Self.now, posts: posts))
        #expect(output.tile["pain"]?["latest"]?.number == 8)
        #expect(output.tile["pain"]?["trend"]?.string == "up")
        #expect(output.tile["mood"]?["trend"]?.string == "steady")
        #expect(output.tile["energy"] == .null)
        #expect(output.message.hasPrefix("Pain 8"))
    }

    @Test("immunizations: the last dose of each vaccine by CVX code, refused ones left out")
    func immunizations() {
        let record = ModuleRecord(patient: .patient(), now: Self.now, entries: [.immunization: .stored([
            .entry(.immunization, "Td", id: "e_1", at: 1_000_000, status: "completed", codes: ["CVX": ["09"]]),
            .entry(.immunization, "Influenza", id: "e_2", at: 2_000_000, status: "completed", codes: ["CVX": ["140"]]),
            .entry(.immunization, "Td (adult)", id: "e_3", at: 3_000_000, status: "completed", codes: ["CVX": ["09"]]),
            .entry(.immunization, "HPV", id: "e_4", at: 4_000_000, status: "not-done", codes: ["CVX": ["62"]]),
        ])])
        let vaccines = Self.evaluate(ImmunizationsModule(), record).tile["vaccines"]?.array ?? []
        #expect(vaccines.count == 2)
        #expect(vaccines.first?["name"]?.string == "Td (adult)")
        #expect(vaccines.first?["last_date"]?.number == 3_000_000)
        #expect(vaccines.first?["doses"]?.number == 2)
    }

    @Test("problems and allergies: active ones only, allergies with reaction and severity")
    func problemsAndAllergies() {
        let record = ModuleRecord(patient: .patient(), now: Self.now,
                                  entries: [.condition: .stored([.entry(.condition, "Asthma", id: "e_1", start: 1000, status: "active"),
                                                                 .entry(.condition, "Flu", id: "e_2", start: 1000, status: "resolved")]),
                                            .allergy: .stored([.entry(.allergy, "Penicillin", id: "e_3", start: 1000, status: "active")])],
                                  allergyDetails: ["e_3": AllergyDetail(reaction: "Hives", severity: "severe")])
        let output = Self.evaluate(ProblemsAllergiesModule(), record)
        #expect(output.tile["problems"]?.array?.map { $0["description"]?.string } == ["Asthma"])
        #expect(output.tile["allergies"]?.array?.first?["reaction"]?.string == "Hives")
        #expect(output.message.hasPrefix("1 active problem and 1 allergy"))
        #expect(output.message.contains("Severe: Penicillin"))
    }

    @Test("medications: active ones with the person's notes, and the ones they added on the timeline")
    func medications() {
        let medication = Entry.entry(.medication, "Metformin", id: "e_m", start: 1000, status: "active").stored
        let stopped = Entry.entry(.medication, "Amoxicillin", id: "e_s", start: 1000, end: 2000).stored
        let note = Annotation(entryID: "e_m", note: "with breakfast", struck: false, reason: nil,
                              medication: Annotation.Medication(quantity: nil, dose: "500 mg", directions: nil, prescriber: nil),
                              createdAt: 0, updatedAt: 0, orphaned: false)
        let post = TimelinePost(id: "t_1", patientID: "p_test", kind: .medication, createdAt: 5000, dataJSON: #"{"description":"Ibuprofen 200","select-choice-freq":"BID"}"#)
        let output = Self.evaluate(MedicationsModule(), ModuleRecord(patient: .patient(), now: Self.now, entries: [.medication: [medication, stopped]],
                                                                     posts: [post], annotations: ["e_m": note]))
        let active = output.tile["active"]?.array ?? []
        #expect(active.map { $0["description"]?.string } == ["Metformin", "Ibuprofen 200"])
        #expect(active.first?["dose"]?.string == "500 mg")
        #expect(active.first?["note"]?.string == "with breakfast")
        #expect(active.last?["self_reported"] == .bool(true))
        #expect(active.last?["directions"]?.string == "BID")
        #expect(output.message == "2 active medications.")
    }

    // MARK: the protocol

    /// A module the catalog does not know: it needs the BMI the weight-bmi module offers.
    struct WaistToHeightModule: SummaryModule {
        let id = "test-bmi-echo"
        let name = "BMI echo"
        let about = "Repeats the BMI another module worked out."
        var reads: ModuleReads { ModuleReads() }
        var needs: [String] { ["weight-bmi.bmi"] }
        func evaluate(_ record: ModuleRecord, shared: SharedValues) -> ModuleOutput {
            ModuleOutput(message: shared["weight-bmi.bmi"].map { "BMI from the other module: \(Int($0))" } ?? "no BMI",
                         tile: ["bmi": TileValue(shared["weight-bmi.bmi"])])
        }
    }

    @Test("a module added in the test target appears, is evaluated after the module it needs (even one not shown), and gets its value")
    func protocolExtension() {
        let catalog = ModuleCatalog(ModuleCatalog.standard.modules + [WaistToHeightModule()])
        #expect(catalog.module("test-bmi-echo") != nil)
        #expect(catalog.validate(["test-bmi-echo", "blood-pressure"]) == .success(["test-bmi-echo", "blood-pressure"]))
        #expect(catalog.evaluationOrder(["test-bmi-echo"]).map(\.id) == ["weight-bmi", "test-bmi-echo"])
        #expect(catalog.reads(["test-bmi-echo"]).readings)
        let record = ModuleRecord(patient: .patient(birthdate: 0), now: Self.now,
                                  readings: [Self.reading(.height, 180, at: Self.now), Self.reading(.weight, 81, at: Self.now)])
        let outputs = catalog.evaluate(["test-bmi-echo"], record: record)
        #expect(outputs.map(\.module.id) == ["test-bmi-echo"])
        #expect(outputs.first?.output.message == "BMI from the other module: 25")
        // The standard catalog is untouched by it.
        #expect(ModuleCatalog.standard.module("test-bmi-echo") == nil)
        #expect(ModuleCatalog.standard.validate(["test-bmi-echo"]) == .failure(.unknown("test-bmi-echo")))
    }

    @Test("defaults by age: a child sees no blood pressure, blood sugar or cholesterol; an adult sees every module")
    func defaultsByAge() {
        let child = ModuleCatalog.standard.defaults(age: 8)
        #expect(!child.contains("blood-pressure") && !child.contains("blood-sugar") && !child.contains("cholesterol"))
        #expect(child.contains("weight-bmi") && child.contains("immunizations"))
        #expect(ModuleCatalog.standard.defaults(age: 40) == ModuleCatalog.standard.modules.map(\.id))
        #expect(ModuleCatalog.standard.validate(["feelings", "feelings"]) == .failure(.repeated("feelings")))
    }

    @Test("vital signs are told by LOINC, else by name; a wrong code on a named vital does not win over no code")
    func measureClassification() {
        let record = ModuleRecord(patient: .patient(), now: Self.now, entries: [.vitalSign: .stored([
            .entry(.vitalSign, "Body weight Measured", at: 100, value: 154, units: "[lb_av]", codes: ["LOINC": ["29463-7"]]),
            .entry(.vitalSign, "Weight", at: 200, value: 70, units: "kg"),
            .entry(.vitalSign, "Body mass index (BMI) [Percentile] Per age and sex", at: 300, value: 50, units: "%"),
            .entry(.vitalSign, "Oxygen Saturation", at: 400, value: 97, units: "%"),
        ])])
        let measurements = record.measurements
        #expect(measurements[.weight].map(\.value).map { ($0 * 10).rounded() / 10 } == [69.9, 70])
        #expect(measurements[.bmi].isEmpty)
        #expect(measurements[.systolic].isEmpty)
    }
}
