import HealthRecord
import Modules
import Testing

/// Each rule at its edges, with the numbers its guideline states.
@Suite("rules")
struct RuleTests {
    @Test("blood pressure: the 2017 ACC/AHA categories at their edges", arguments: [
        (119.0, 79.0, BloodPressureCategory.normal),
        (120, 79, .elevated),
        (120, 80, .stage1),
        (129, 79, .elevated),
        (130, 79, .stage1),
        (130, 80, .stage1),
        (139, 89, .stage1),
        (140, 89, .stage2),
        (139, 90, .stage2),
        (140, 90, .stage2),
        (180, 120, .stage2),
        (181, 100, .severe),
        (150, 121, .severe),
    ])
    func bloodPressure(systolic: Double, diastolic: Double, expected: BloodPressureCategory) {
        #expect(BloodPressureCategory(systolic: systolic, diastolic: diastolic) == expected)
    }

    @Test("adult BMI: underweight, healthy, overweight, obesity at 18.5, 25 and 30", arguments: [
        (18.4, AdultBMICategory.underweight), (18.5, .healthy), (24.9, .healthy), (25, .overweight), (29.9, .overweight), (30, .obesity),
    ])
    func adultBMI(bmi: Double, expected: AdultBMICategory) {
        #expect(AdultBMICategory(bmi: bmi) == expected)
    }

    @Test("BMI from kilograms and centimetres")
    func bmiFormula() throws {
        #expect(abs(try #require(bodyMassIndex(weight: 70, height: 175)) - 22.857) < 0.001)
        #expect(bodyMassIndex(weight: 70, height: 0) == nil)
    }

    /// The worked examples of ../shared/growth/README.md (age in completed months; the row is that + 0.5).
    @Test("BMI-for-age: the growth README's worked examples", arguments: [
        (BMIForAge.Sex.male, Int64(120), 18.0, 0.59, 72.09, BMIForAge.Category.healthy),
        (.female, 186, 25, 1.15, 87.49, .overweight),
        (.male, 36, 16, -0.0003, 49.99, .healthy),
        (.male, 36, 14, -2.02, 2.15, .underweight),
    ])
    func bmiForAge(sex: BMIForAge.Sex, months: Int64, bmi: Double, z: Double, percentile: Double, category: BMIForAge.Category) throws {
        let result = try #require(BMIForAge.evaluate(bmi: bmi, sex: sex, completedMonths: months))
        #expect(abs(result.z - z) < (abs(z) < 0.01 ? 0.0001 : 0.005))
        #expect(abs(result.percentile - percentile) < 0.005)
        #expect(result.category == category)
    }

    @Test("BMI-for-age applies from 24 completed months through 240 (ages 2.0 to 20.0), not at 1.9 or 20.1")
    func bmiForAgeRange() {
        #expect(!BMIForAge.applies(completedMonths: 22)) // 1.9 years
        #expect(!BMIForAge.applies(completedMonths: 23))
        #expect(BMIForAge.applies(completedMonths: 24)) // 2.0
        #expect(BMIForAge.applies(completedMonths: 240)) // 20.0
        #expect(!BMIForAge.applies(completedMonths: 241)) // 20.1
        #expect(BMIForAge.evaluate(bmi: 16, sex: .male, completedMonths: 23) == nil)
        #expect(BMIForAge.evaluate(bmi: 22, sex: .female, completedMonths: 240) != nil)
    }

    @Test("BMI-for-age categories: below the 5th, to the 85th, to the 95th, from the 95th")
    func bmiForAgeCategories() {
        #expect(BMIForAge.Category(percentile: 4.99) == .underweight)
        #expect(BMIForAge.Category(percentile: 5) == .healthy)
        #expect(BMIForAge.Category(percentile: 84.99) == .healthy)
        #expect(BMIForAge.Category(percentile: 85) == .overweight)
        #expect(BMIForAge.Category(percentile: 94.99) == .overweight)
        #expect(BMIForAge.Category(percentile: 95) == .obesity)
    }

    @Test("glucose: the ADA fasting ranges, the random threshold, low and very low", arguments: [
        (53.0, true, GlucoseRange.veryLow), (54, true, .low), (69, false, .low), (70, true, .normal), (99, true, .normal),
        (100, true, .prediabetes), (125, true, .prediabetes), (126, true, .diabetes),
        (125, false, .notClassified), (199, false, .notClassified), (200, false, .diabetes),
    ])
    func glucose(value: Double, fasting: Bool, expected: GlucoseRange) {
        #expect(GlucoseRange(glucose: value, fasting: fasting) == expected)
    }

    @Test("HbA1c: below 5.7 normal, 5.7 to 6.4 prediabetes range, from 6.5 diabetes range", arguments: [
        (5.6, GlucoseRange.normal), (5.7, .prediabetes), (6.4, .prediabetes), (6.5, .diabetes),
    ])
    func hba1c(value: Double, expected: GlucoseRange) {
        #expect(GlucoseRange(hba1c: value) == expected)
    }

    @Test("lipids: the NCEP ATP III ranges at their edges")
    func lipids() {
        #expect(LipidRange(total: 199) == .desirable)
        #expect(LipidRange(total: 200) == .borderlineHigh)
        #expect(LipidRange(total: 240) == .high)
        #expect(LipidRange(ldl: 99) == .optimal)
        #expect(LipidRange(ldl: 130) == .borderlineHigh)
        #expect(LipidRange(ldl: 190) == .veryHigh)
        #expect(LipidRange(hdl: 39) == .low)
        #expect(LipidRange(hdl: 60) == .high)
        #expect(LipidRange(triglycerides: 150) == .borderlineHigh)
        #expect(LipidRange(triglycerides: 500) == .veryHigh)
    }
}
