import HealthRecord

/// Glucose and HbA1c: the latest of each in the ADA ranges, and the glucose readings as a trend.
public struct BloodSugarModule: SummaryModule {
    public init() {}
    public let id = "blood-sugar"
    public let name = "Blood sugar"
    public let about = "Your glucose and HbA1c, with the ranges of the ADA Standards of Care in Diabetes."
    public var reads: ModuleReads { ModuleReads(measures: true, readings: true) }
    public var accepts: [Reading.Kind] { [.glucose] }
    public var offers: [String] { ["blood-sugar.glucose", "blood-sugar.hba1c"] }
    static let trendLength = 20

    public func shownByDefault(age: Double?) -> Bool { (age ?? 18) >= 18 }

    public func evaluate(_ record: ModuleRecord, shared: SharedValues) -> ModuleOutput {
        let measurements = record.measurements
        let glucose = measurements.latest(.glucose)
        let hba1c = measurements.latest(.hba1c)
        guard glucose != nil || hba1c != nil else {
            return ModuleOutput(message: record.none("No glucose or HbA1c recorded"), tile: ["glucose": nil, "hba1c": nil, "readings": []])
        }
        var parts: [String] = []
        var flagged = false
        var offered: [String: Double] = [:]
        var glucoseTile: TileValue = nil
        if let glucose {
            let fasting = glucose.context == .fasting
            let range = GlucoseRange(glucose: glucose.value, fasting: fasting)
            flagged = flagged || range.isFlagged
            offered["blood-sugar.glucose"] = glucose.value
            let context = glucose.context.map { " (\($0.rawValue.split(separator: "_").joined(separator: " ")))" } ?? ""
            parts.append("Glucose \(Numbers.text(glucose.value, places: 0)) mg/dL\(context) on \(record.dayWithAge(glucose.date))"
                         + (range == .notClassified ? "." : ": \(range.label).") + glucose.sourceRangeSentence)
            flagged = flagged || glucose.isOutsideSourceRange
            glucoseTile = ["value": TileValue(Numbers.rounded(glucose.value, places: 0)), "unit": "mg/dL", "date": .int(glucose.date),
                           "context": TileValue(glucose.context?.rawValue), "range": .string(range.rawValue),
                           "self_reported": .bool(glucose.selfReported), "source_range": glucose.sourceRangeTile,
                           "outside_source_range": .bool(glucose.isOutsideSourceRange)]
        }
        var hba1cTile: TileValue = nil
        if let hba1c {
            let range = GlucoseRange(hba1c: hba1c.value)
            flagged = flagged || range.isFlagged
            offered["blood-sugar.hba1c"] = hba1c.value
            parts.append("HbA1c \(Numbers.text(hba1c.value)) % on \(record.dayWithAge(hba1c.date)): \(range.label)." + hba1c.sourceRangeSentence)
            flagged = flagged || hba1c.isOutsideSourceRange
            hba1cTile = ["value": TileValue(Numbers.rounded(hba1c.value)), "unit": "%", "date": .int(hba1c.date), "range": .string(range.rawValue),
                         "source_range": hba1c.sourceRangeTile, "outside_source_range": .bool(hba1c.isOutsideSourceRange)]
        }
        var message = parts.joined(separator: " ")
        message += flagged && !record.patient.deceased ? record.advice("Talk to a clinician about it (\(GlucoseRange.guideline)).")
            : " Ranges from \(GlucoseRange.guideline)."
        let readings = measurements[.glucose].suffix(Self.trendLength).map { g -> TileValue in
            ["value": TileValue(Numbers.rounded(g.value, places: 0)), "date": .int(g.date), "self_reported": .bool(g.selfReported)]
        }
        return ModuleOutput(message: message, tile: ["glucose": glucoseTile, "hba1c": hba1cTile, "readings": .array(readings)], offered: offered)
    }
}
