import HealthRecord

/// Cholesterol: the latest total, LDL, HDL and triglycerides, each in the NCEP ATP III ranges.
public struct CholesterolModule: SummaryModule {
    public init() {}
    public let id = "cholesterol"
    public let name = "Cholesterol"
    public let about = "Your latest cholesterol results (total, LDL, HDL, triglycerides) with the ranges lab reports use."
    public var reads: ModuleReads { ModuleReads(measures: true) }

    public func shownByDefault(age: Double?) -> Bool { (age ?? 18) >= 18 }

    public func evaluate(_ record: ModuleRecord, shared: SharedValues) -> ModuleOutput {
        let measurements = record.measurements
        let lipids: [(key: String, name: String, measure: Measure, range: (Double) -> LipidRange)] = [
            ("total", "Total cholesterol", .totalCholesterol, LipidRange.init(total:)),
            ("ldl", "LDL", .ldl, LipidRange.init(ldl:)),
            ("hdl", "HDL", .hdl, LipidRange.init(hdl:)),
            ("triglycerides", "Triglycerides", .triglycerides, LipidRange.init(triglycerides:)),
        ]
        var members: [TileValue.Member] = []
        var parts: [String] = []
        var flagged = false
        var offered: [String: Double] = [:]
        for lipid in lipids {
            guard let latest = measurements.latest(lipid.measure) else {
                members.append(.init(key: lipid.key, value: nil))
                continue
            }
            let range = lipid.range(latest.value)
            if [.borderlineHigh, .high, .veryHigh].contains(range) && lipid.measure != .hdl || range == .low { flagged = true }
            if latest.isOutsideSourceRange { flagged = true }
            offered["cholesterol.\(lipid.key)"] = latest.value
            // The lab's own range, when it gave one, beside the guideline's.
            let lab = latest.sourcePlacement.map { placement in
                "; \(placement == .within ? "within" : placement == .above ? "above" : "below") the lab's range"
                    + (latest.sourceRange.map { " \($0.shown)" } ?? "")
            } ?? ""
            parts.append("\(lipid.name) \(Numbers.text(latest.value, places: 0)) mg/dL (\(range.label)\(lab))")
            members.append(.init(key: lipid.key, value: ["value": TileValue(Numbers.rounded(latest.value, places: 0)), "unit": "mg/dL",
                                                         "date": .int(latest.date), "range": .string(range.rawValue),
                                                         "source_range": latest.sourceRangeTile,
                                                         "outside_source_range": .bool(latest.isOutsideSourceRange)]))
        }
        guard !parts.isEmpty else { return ModuleOutput(message: record.none("No cholesterol results in the record"), tile: .object(members)) }
        let dates = lipids.compactMap { measurements.latest($0.measure)?.date }
        var message = parts.joined(separator: ", ") + ", latest on \(record.dayWithAge(dates.max() ?? record.now))."
        message += flagged && !record.patient.deceased ? record.advice("Talk to a clinician about these results (\(LipidRange.guideline)).")
            : " Ranges from \(LipidRange.guideline)."
        return ModuleOutput(message: message, tile: .object(members), offered: offered)
    }
}
