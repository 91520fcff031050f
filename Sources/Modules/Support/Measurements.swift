import HealthRecord

/// The quantities the modules follow, each in one unit.
public enum Measure: String, Sendable, CaseIterable {
    case weight        // kg
    case height        // cm
    case bmi           // kg/m2
    case systolic      // mm[Hg]
    case diastolic     // mm[Hg]
    case pulse         // /min
    case glucose       // mg/dL
    case hba1c         // %
    case totalCholesterol = "total_cholesterol"  // mg/dL
    case ldl           // mg/dL
    case hdl           // mg/dL
    case triglycerides // mg/dL

    public var unit: String {
        switch self {
        case .weight: return "kg"
        case .height: return "cm"
        case .bmi: return "kg/m2"
        case .systolic, .diastolic: return "mm[Hg]"
        case .pulse: return "/min"
        case .glucose, .totalCholesterol, .ldl, .hdl, .triglycerides: return "mg/dL"
        case .hba1c: return "%"
        }
    }

    /// LOINC codes of the measure (the common ones senders use).
    static let loinc: [String: Measure] = [
        "29463-7": .weight, "3141-9": .weight, "3142-7": .weight,
        "8302-2": .height, "8306-3": .height, "8308-9": .height,
        "39156-5": .bmi,
        "8480-6": .systolic, "8459-0": .systolic, "8460-8": .systolic,
        "8462-4": .diastolic, "8453-3": .diastolic, "8454-1": .diastolic,
        "8867-4": .pulse,
        "2339-0": .glucose, "2345-7": .glucose, "1558-6": .glucose, "41653-7": .glucose, "2340-8": .glucose,
        "4548-4": .hba1c, "17856-6": .hba1c, "4549-2": .hba1c,
        "2093-3": .totalCholesterol,
        "18262-6": .ldl, "13457-7": .ldl, "2089-1": .ldl,
        "2085-9": .hdl,
        "2571-8": .triglycerides,
    ]

    /// The measure of an entry: by its LOINC code, else by words in its description (records often carry a
    /// wrong or no code for vital signs); nil when it is none of them.
    static func of(_ entry: StoredEntry) -> Measure? {
        for code in CodesJSON.codes("LOINC", in: entry.codesJSON) { if let measure = loinc[code] { return measure } }
        guard let description = entry.description?.lowercased() else { return nil }
        func has(_ word: String) -> Bool { description.contains(word) }
        if has("percentile") || has("z-score") || has("birth") || has("head") { return nil }
        if has("systolic") { return .systolic }
        if has("diastolic") { return .diastolic }
        if has("body mass index") || description == "bmi" || has("bmi ") { return .bmi }
        if has("weight") { return .weight }
        if has("height") || has("body length") { return .height }
        if has("heart rate") || has("pulse") { return .pulse }
        if has("a1c") { return .hba1c }
        if has("glucose") { return .glucose }
        if has("triglyceride") { return .triglycerides }
        if has("cholesterol") {
            if has("hdl") || has("high density") { return .hdl }
            if has("ldl") || has("low density") { return .ldl }
            return has("total") || description == "cholesterol" ? .totalCholesterol : nil
        }
        return nil
    }

    /// `value` in `units` converted to the measure's unit; nil when the units are ones it cannot be in.
    func canonical(_ value: Double, units: String?) -> Double? {
        let unit = (units ?? "").trimmedWhitespace
        switch self {
        case .weight:
            switch unit {
            case "kg", "": return value
            case "g": return value / 1000
            case "lb", "lbs", "[lb_av]": return value * 0.45359237
            case "oz", "[oz_av]": return value * 0.028349523125
            default: return nil
            }
        case .height:
            switch unit {
            case "cm", "": return value
            case "m": return value * 100
            case "in", "[in_i]", "[in_us]", "inch", "inches": return value * 2.54
            case "ft", "[ft_i]": return value * 30.48
            default: return nil
            }
        case .glucose:
            switch unit.lowercased() {
            case "mg/dl", "": return value
            case "mmol/l": return value * 18.016
            default: return nil
            }
        case .totalCholesterol, .ldl, .hdl:
            switch unit.lowercased() {
            case "mg/dl", "": return value
            case "mmol/l": return value * 38.67
            default: return nil
            }
        case .triglycerides:
            switch unit.lowercased() {
            case "mg/dl", "": return value
            case "mmol/l": return value * 88.57
            default: return nil
            }
        case .hba1c:
            switch unit.lowercased() {
            case "%", "", "% of total hgb", "%{hb}": return value
            // IFCC mmol/mol to NGSP %.
            case "mmol/mol": return value / 10.929 + 2.15
            default: return nil
            }
        case .bmi, .systolic, .diastolic, .pulse: return value
        }
    }
}

/// One value of a measure, in the measure's unit.
public struct Measurement: Sendable, Equatable {
    public var measure: Measure
    public var value: Double
    public var date: Int64
    public var id: String
    public var selfReported: Bool
    /// A glucose reading's context, when the person gave one.
    public var context: Reading.Context?
    /// The normal range the source gave with the value, in the measure's unit; nil when it gave none (or
    /// one in units the measure cannot be in).
    public var sourceRange: SourceRange?
    /// The source's interpretation code ("H", "LL"…), when it gave one.
    public var interpretation: String?

    /// Where the value lies against the source's range: what its interpretation code says, else its bounds.
    public var sourcePlacement: ReferenceRange.Placement? {
        switch interpretation {
        case "H"?, "HH"?, "HU"?, "HX"?: return .above
        case "L"?, "LL"?, "LU"?, "LX"?: return .below
        case "N"?: return .within
        default: break
        }
        guard let sourceRange else { return nil }
        if let low = sourceRange.low, value < low { return .below }
        if let high = sourceRange.high, value > high { return .above }
        return .within
    }
}

/// A source's normal range in a measure's unit.
public struct SourceRange: Sendable, Equatable {
    public var low: Double?
    public var high: Double?

    /// "70–99", "< 200", "> 40": as a message names it.
    var shown: String {
        switch (low, high) {
        case let (l?, h?): return "\(Numbers.text(l))–\(Numbers.text(h))"
        case let (nil, h?): return "< \(Numbers.text(h))"
        case let (l?, nil): return "> \(Numbers.text(l))"
        case (nil, nil): return ""
        }
    }
}

/// Every measurement of a record and the person's readings, by measure, oldest first.
public struct Measurements: Sendable {
    public private(set) var byMeasure: [Measure: [Measurement]] = [:]
    /// The entry types measurements come from.
    public static let entryTypes: Set<EntryType> = [.vitalSign, .result]

    /// What `Measure.of` reads of an entry.
    private struct Kind: Hashable {
        let codes: String
        let description: String?
    }
    /// A record says the same few kinds of reading thousands of times: each kind's measure is worked out
    /// once (the summary of a 1,000,000-entry record spent 12 of its 12.4 s in `Measure.of`).
    private var kinds: [Kind: Measure?] = [:]

    init() {}

    init(entries: [EntryType: [StoredEntry]], readings: [Reading]) {
        for type in [EntryType.vitalSign, .result] {
            for entry in entries[type] ?? [] { add(entry) }
        }
        finish(adding: readings)
    }

    /// An entry's measurement, when it is one (a vital sign or result of a known measure, with a value and a
    /// date, in units the measure can be in).
    mutating func add(_ entry: StoredEntry) {
        guard Self.entryTypes.contains(entry.type), let value = entry.value, let date = entry.date else { return }
        let kind = Kind(codes: entry.codesJSON, description: entry.description)
        let found: Measure?
        if let known = kinds[kind] {
            found = known
        } else {
            found = Measure.of(entry)
            kinds[kind] = found
        }
        guard let measure = found, let canonical = measure.canonical(value, units: entry.units) else { return }
        var measurement = Measurement(measure: measure, value: canonical, date: date, id: entry.id, selfReported: false)
        measurement.interpretation = entry.interpretation
        if let range = entry.referenceRange, range.low != nil || range.high != nil {
            // Each bound in the measure's unit, from its own unit (else the value's); a bound that cannot be is dropped.
            let low = range.low.flatMap { measure.canonical($0.value, units: $0.unit ?? entry.units) }
            let high = range.high.flatMap { measure.canonical($0.value, units: $0.unit ?? entry.units) }
            if low != nil || high != nil { measurement.sourceRange = SourceRange(low: low, high: high) }
        }
        byMeasure[measure, default: []].append(measurement)
    }

    /// The person's readings added, and every measure's values put in date order.
    mutating func finish(adding readings: [Reading]) {
        for reading in readings {
            let measures: [(Measure, Double)]
            switch reading.kind {
            case .weight: measures = [(.weight, reading.canonicalValue)]
            case .height: measures = [(.height, reading.canonicalValue)]
            case .pulse: measures = [(.pulse, reading.canonicalValue)]
            case .glucose: measures = [(.glucose, reading.canonicalValue)]
            case .bloodPressure: measures = [(.systolic, reading.value)] + (reading.secondValue.map { [(.diastolic, $0)] } ?? [])
            }
            for (measure, value) in measures {
                byMeasure[measure, default: []].append(Measurement(measure: measure, value: value, date: reading.takenAt, id: reading.id,
                                                                   selfReported: true, context: reading.context))
            }
        }
        for measure in byMeasure.keys { byMeasure[measure]?.sort { ($0.date, $0.id) < ($1.date, $1.id) } }
        kinds = [:]
    }

    public subscript(measure: Measure) -> [Measurement] { byMeasure[measure] ?? [] }
    public func latest(_ measure: Measure) -> Measurement? { byMeasure[measure]?.last }
}

extension Measurement {
    /// " The lab's range is 70–99: above it.": what the source's range says of the value, as a message's
    /// sentence (with its leading space); "" when the source gave neither a range nor an interpretation.
    var sourceRangeSentence: String {
        guard let placement = sourcePlacement else { return "" }
        let word = switch placement {
        case .within: "Within"
        case .above: "Above"
        case .below: "Below"
        }
        return " \(word) the lab's range\(sourceRange.map { " (\($0.shown))" } ?? "")."
    }

    /// The source's range as a tile member's value: `{"low", "high"}`, or null.
    var sourceRangeTile: TileValue {
        guard let sourceRange else { return nil }
        return ["low": TileValue(sourceRange.low.map { Numbers.rounded($0) }), "high": TileValue(sourceRange.high.map { Numbers.rounded($0) })]
    }

    /// Whether the source's range or interpretation puts the value outside the normal range.
    var isOutsideSourceRange: Bool {
        if ResultInterpretation.isFlagged(interpretation) { return true }
        return sourcePlacement.map { $0 != .within } ?? false
    }
}
