import HealthRecord

/// Blood pressure: the latest reading and the average of the last three, each in its 2017 ACC/AHA
/// category, and the readings as a trend.
public struct BloodPressureModule: SummaryModule {
    public init() {}
    public let id = "blood-pressure"
    public let name = "Blood pressure"
    public let about = "Your blood pressure readings, with the 2017 ACC/AHA category of the latest and of the average of the last three."
    public var reads: ModuleReads { ModuleReads(measures: true, readings: true) }
    public var accepts: [Reading.Kind] { [.bloodPressure] }
    public var offers: [String] { ["blood-pressure.systolic", "blood-pressure.diastolic"] }
    /// The readings a tile carries for its trend.
    static let trendLength = 20
    /// How many of the latest readings are averaged.
    static let averaged = 3

    public func shownByDefault(age: Double?) -> Bool { (age ?? 18) >= 18 }

    /// A systolic and a diastolic taken at the same time.
    struct Pair: Equatable {
        var systolic: Double
        var diastolic: Double
        var date: Int64
        var selfReported: Bool
    }

    static func pairs(_ measurements: Measurements) -> [Pair] {
        var diastolic: [Int64: Measurement] = [:]
        for reading in measurements[.diastolic] { diastolic[reading.date] = reading }
        return measurements[.systolic].compactMap { s in
            diastolic[s.date].map { Pair(systolic: s.value, diastolic: $0.value, date: s.date, selfReported: s.selfReported) }
        }
    }

    public func evaluate(_ record: ModuleRecord, shared: SharedValues) -> ModuleOutput {
        let pairs = Self.pairs(record.measurements)
        guard let latest = pairs.last else {
            return ModuleOutput(message: record.none("No blood pressure recorded") + record.advice("Add a reading to see its category."),
                                tile: ["latest": nil, "category": nil, "average": nil, "readings": []])
        }
        let category = BloodPressureCategory(systolic: latest.systolic, diastolic: latest.diastolic)
        let last = pairs.suffix(Self.averaged)
        let average = (systolic: last.map(\.systolic).reduce(0, +) / Double(last.count),
                       diastolic: last.map(\.diastolic).reduce(0, +) / Double(last.count))
        let averageCategory = BloodPressureCategory(systolic: average.systolic, diastolic: average.diastolic)

        var message = "Latest \(Numbers.text(latest.systolic, places: 0))/\(Numbers.text(latest.diastolic, places: 0)) on \(record.dayWithAge(latest.date)): "
            + "\(category.label) in \(BloodPressureCategory.guideline)."
        if last.count > 1 {
            message += " The average of the last \(last.count) is \(Numbers.text(average.systolic, places: 0))/\(Numbers.text(average.diastolic, places: 0)): \(averageCategory.label)."
        }
        let worst = max(category, averageCategory)
        if worst == .severe {
            message += record.advice("Readings above 180/120 need prompt care: contact a clinician now, as \(BloodPressureCategory.guideline) advises.")
        } else if worst >= .stage1 {
            message += record.advice("Talk to a clinician about readings in this range (\(BloodPressureCategory.guideline)).")
        }
        if let age = record.age, age < 18 {
            message += " These adult categories do not apply to children."
        }
        let trend = pairs.suffix(Self.trendLength).map { pair -> TileValue in
            ["systolic": TileValue(Numbers.rounded(pair.systolic, places: 0)), "diastolic": TileValue(Numbers.rounded(pair.diastolic, places: 0)),
             "date": .int(pair.date), "self_reported": .bool(pair.selfReported)]
        }
        return ModuleOutput(
            message: message,
            tile: [
                "latest": ["systolic": TileValue(Numbers.rounded(latest.systolic, places: 0)),
                           "diastolic": TileValue(Numbers.rounded(latest.diastolic, places: 0)), "date": .int(latest.date),
                           "self_reported": .bool(latest.selfReported)],
                "category": .string(category.rawValue),
                "average": ["systolic": TileValue(Numbers.rounded(average.systolic, places: 0)),
                            "diastolic": TileValue(Numbers.rounded(average.diastolic, places: 0)),
                            "count": .int(Int64(last.count)), "category": .string(averageCategory.rawValue)],
                "readings": .array(trend),
                "guideline": .string(BloodPressureCategory.guideline),
            ],
            offered: ["blood-pressure.systolic": latest.systolic, "blood-pressure.diastolic": latest.diastolic])
    }
}
