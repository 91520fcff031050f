/// What a lab report gives beside a result: the test's normal range for an adult (as labs commonly print
/// it, in the test's units) and the flag of a value against it, so that the demo's results look like real
/// ones: most within, some high or low. Qualitative tests have their normal answer instead.
enum LabRanges {
    struct Normal {
        var low: Double?
        var high: Double?
    }

    /// By LOINC code (`Vocabulary.labTests`).
    static let normal: [String: Normal] = [
        "2093-3": Normal(low: nil, high: 200),     // total cholesterol
        "2571-8": Normal(low: nil, high: 150),     // triglycerides
        "2085-9": Normal(low: 40, high: nil),      // HDL
        "13457-7": Normal(low: nil, high: 100),    // LDL
        "2345-7": Normal(low: 70, high: 99),       // glucose
        "4548-4": Normal(low: 4, high: 5.6),       // HbA1c
        "2160-0": Normal(low: 0.6, high: 1.3),     // creatinine
        "3094-0": Normal(low: 7, high: 20),        // urea nitrogen
        "2951-2": Normal(low: 135, high: 145),     // sodium
        "2823-3": Normal(low: 3.5, high: 5.1),     // potassium
        "2075-0": Normal(low: 98, high: 107),      // chloride
        "17861-6": Normal(low: 8.6, high: 10.3),   // calcium
        "6690-2": Normal(low: 4.5, high: 11),      // white cells
        "718-7": Normal(low: 12, high: 17.5),      // hemoglobin
        "4544-3": Normal(low: 36, high: 50),       // hematocrit
        "777-3": Normal(low: 150, high: 400),      // platelets
        "3016-3": Normal(low: 0.4, high: 4.5),     // TSH
        "1742-6": Normal(low: 7, high: 56),        // ALT
        "1920-8": Normal(low: 10, high: 40),       // AST
        "33914-3": Normal(low: 60, high: nil),     // eGFR
        "1989-3": Normal(low: 30, high: 100),      // vitamin D
    ]

    /// The normal answer of a qualitative test, by LOINC code.
    static let normalAnswer: [String: String] = [
        "630-4": "No growth", "5196-1": "Non-reactive", "80382-5": "Negative", "94500-6": "Not detected",
    ]

    /// HL7's interpretation code of a value against its test's range: `H`, `L` or `N`; for a qualitative
    /// answer, `A` when it is not the normal one; nil when the test has no range.
    static func interpretation(loinc: String, value: Double) -> String? {
        guard let range = normal[loinc] else { return nil }
        if let high = range.high, value > high { return "H" }
        if let low = range.low, value < low { return "L" }
        return "N"
    }

    static func interpretation(loinc: String, answer: String) -> String? {
        guard let expected = normalAnswer[loinc] else { return nil }
        return answer == expected ? "N" : "A"
    }

    static let words = ["H": "High", "L": "Low", "N": "Normal", "A": "Abnormal"]
}
