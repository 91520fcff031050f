import HealthRecord

/// Weight, height and BMI: adult categories from 20 years; for ages 2 to 20, the BMI-for-age percentile
/// of the CDC 2000 growth charts, at the age of the measurement.
public struct WeightBMIModule: SummaryModule {
    public init() {}
    public let id = "weight-bmi"
    public let name = "Weight and BMI"
    public let about = "Your weight and height, your BMI and, for ages 2 to 20, its percentile on the CDC growth charts."
    public var reads: ModuleReads { ModuleReads(measures: true, readings: true) }
    public var accepts: [Reading.Kind] { [.weight, .height] }
    public var offers: [String] { ["weight-bmi.weight", "weight-bmi.height", "weight-bmi.bmi"] }
    static let trendLength = 20
    /// A weight older than this earns a nudge to weigh again (SelfHub's "no weight recorded for a month").
    static let staleAfter: Int64 = 30 * 86_400

    public func evaluate(_ record: ModuleRecord, shared: SharedValues) -> ModuleOutput {
        let measurements = record.measurements
        let weights = measurements[.weight]
        guard let weight = weights.last else {
            // A BMI recorded without a weight (as many records carry it) is classified as a computed one is.
            if let recorded = measurements.latest(.bmi) {
                let classified = classify(bmi: recorded.value, at: recorded.date, record)
                var tile: [TileValue.Member] = [
                    .init(key: "latest", value: ["bmi": TileValue(Numbers.rounded(recorded.value)), "weight": nil,
                                                 "height": TileValue(measurements.latest(.height).map { Numbers.rounded($0.value) }),
                                                 "date": .int(recorded.date)]),
                    .init(key: "category", value: classified.category),
                ]
                if let percentile = classified.percentile { tile.append(.init(key: "percentile", value: percentile)) }
                tile.append(.init(key: "weights", value: []))
                return ModuleOutput(message: "BMI recorded on \(record.dayWithAge(recorded.date)):\(classified.message)"
                                    + record.advice("Add a weight to follow it."),
                                    tile: .object(tile), offered: ["weight-bmi.bmi": recorded.value])
            }
            if let height = measurements.latest(.height) {
                return ModuleOutput(message: "Height \(Numbers.text(height.value)) cm on \(record.dayWithAge(height.date))."
                                    + record.advice("Add a weight to see your BMI."),
                                    tile: ["latest": ["bmi": nil, "weight": nil, "height": TileValue(Numbers.rounded(height.value)),
                                                      "date": .int(height.date)], "category": nil, "weights": []],
                                    offered: ["weight-bmi.height": height.value])
            }
            return ModuleOutput(message: record.none("No weight recorded") + record.advice("Add your weight and height to see your BMI."),
                                tile: ["latest": nil, "category": nil, "weights": []])
        }
        // The height of the time: the latest taken at or before the weight, else the first after it.
        let heights = measurements[.height]
        let height = heights.last(where: { $0.date <= weight.date }) ?? heights.first
        var offered = ["weight-bmi.weight": weight.value]
        if let height { offered["weight-bmi.height"] = height.value }

        var latest: TileValue = ["bmi": nil, "weight": TileValue(Numbers.rounded(weight.value)),
                                 "height": TileValue(height.map { Numbers.rounded($0.value) }), "date": .int(weight.date)]
        var category: TileValue = nil
        var percentile: TileValue?
        var message = "Weight \(Numbers.text(weight.value)) kg on \(record.dayWithAge(weight.date))."
        // Computed from the weight and its height; else a BMI the record gives for the same day.
        let bmi = height.flatMap { bodyMassIndex(weight: weight.value, height: $0.value) }
            ?? measurements[.bmi].last(where: { abs($0.date - weight.date) < 86_400 })?.value
        if let bmi {
            offered["weight-bmi.bmi"] = bmi
            latest = ["bmi": TileValue(Numbers.rounded(bmi)), "weight": TileValue(Numbers.rounded(weight.value)),
                      "height": TileValue(height.map { Numbers.rounded($0.value) }), "date": .int(weight.date)]
            let classified = classify(bmi: bmi, at: weight.date, record)
            message += classified.message
            category = classified.category
            percentile = classified.percentile
        } else {
            message += record.advice("Add a height to see your BMI.")
        }
        if record.now - weight.date > Self.staleAfter, record.now - weight.date <= ModuleRecord.oldAfter {
            message += record.advice("No weight recorded for \(Numbers.span(record.now - weight.date)).")
        }
        var tile: [TileValue.Member] = [
            .init(key: "latest", value: latest),
            .init(key: "category", value: category),
        ]
        if let percentile { tile.append(.init(key: "percentile", value: percentile)) }
        tile.append(.init(key: "weights", value: .array(weights.suffix(Self.trendLength).map { w -> TileValue in
            ["value": TileValue(Numbers.rounded(w.value)), "date": .int(w.date), "self_reported": .bool(w.selfReported)]
        })))
        return ModuleOutput(message: message, tile: .object(tile), offered: offered)
    }

    /// A BMI taken at `date` in its category: for ages 2 to 20 its percentile for age and sex (CDC), from 20
    /// the adult category (WHO); none under 2 or without the sex a child's percentile needs. The message
    /// part starts with a space.
    func classify(bmi: Double, at date: Int64, _ record: ModuleRecord) -> (message: String, category: TileValue, percentile: TileValue?) {
        let months = record.patient.birthdate.map { Age.completedMonths(from: $0, to: date) }
        if let months, months < 24 {
            return (" BMI \(Numbers.text(bmi)); BMI-for-age applies from age 2, so no category is given.", nil, nil)
        }
        if let months, BMIForAge.applies(completedMonths: months) {
            guard let sex = Self.sex(record.patient.gender),
                  let result = BMIForAge.evaluate(bmi: bmi, sex: sex, completedMonths: months) else {
                return (" BMI \(Numbers.text(bmi)); the percentile for age needs the child's sex in the record.", nil, nil)
            }
            let shown = Numbers.rounded(result.percentile)
            var message = " BMI \(Numbers.text(bmi)), percentile \(Numbers.text(shown)) for age: \(result.category.label) on \(BMIForAge.guideline)."
            if result.category != .healthy { message += record.advice("Talk to the child's clinician about it (\(BMIForAge.guideline)).") }
            return (message, .string(result.category.rawValue), TileValue(shown))
        }
        let adult = AdultBMICategory(bmi: bmi)
        var message = " BMI \(Numbers.text(bmi)): \(adult.label) in \(AdultBMICategory.guideline)."
        if adult != .healthy { message += record.advice("Talk to a clinician about it (\(AdultBMICategory.guideline)).") }
        return (message, .string(adult.rawValue), nil)
    }

    static func sex(_ gender: String?) -> BMIForAge.Sex? {
        switch gender?.lowercased() {
        case "m", "male": return .male
        case "f", "female": return .female
        default: return nil
        }
    }
}
