/// A reading the person took themselves (weight, height, blood pressure, pulse, glucose): a self-reported
/// vital sign. Kept apart from imported entries (its own table, its own `r_` ids) so that no import, sync
/// or re-import ever touches it; shown beside the imported readings on the timeline and in the summary.
public struct Reading: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case weight
        case height
        case bloodPressure = "blood_pressure"
        case pulse
        case glucose

        /// The units a person may enter, the first being the one the timeline shows.
        public var units: [String] {
            switch self {
            case .weight: return ["kg", "lb"]
            case .height: return ["cm", "in"]
            case .bloodPressure: return ["mm[Hg]"]
            case .pulse: return ["/min"]
            case .glucose: return ["mg/dL", "mmol/L"]
            }
        }

        /// The plausible range of a value in the kind's first unit: outside it is a typing slip, not a reading.
        public var plausible: ClosedRange<Double> {
            switch self {
            case .weight: return 0.5...500
            case .height: return 30...250
            case .bloodPressure: return 40...300
            case .pulse: return 20...300
            case .glucose: return 10...1500
            }
        }

        /// The descriptions of the timeline's vital-sign groups, as the common sources name them, so that a
        /// reading joins the imported ones of its kind.
        public var descriptions: [String] {
            switch self {
            case .weight: return ["Body Weight"]
            case .height: return ["Body Height"]
            case .bloodPressure: return ["Systolic Blood Pressure", "Diastolic Blood Pressure"]
            case .pulse: return ["Heart Rate"]
            case .glucose: return ["Glucose"]
            }
        }
    }

    /// When a glucose reading was taken, relative to meals; the ranges differ.
    public enum Context: String, Sendable, CaseIterable {
        case fasting
        case beforeMeal = "before_meal"
        case afterMeal = "after_meal"
        case random
    }

    public var id: String
    public var patientID: String
    public var kind: Kind
    /// Epoch seconds when it was taken.
    public var takenAt: Int64
    /// As entered, in `unit`: the weight, height, pulse or glucose; the systolic pressure.
    public var value: Double
    /// The diastolic pressure; nil for every other kind.
    public var secondValue: Double?
    public var unit: String
    public var context: Context?
    public var note: String?
    public var createdAt: Int64
    public var updatedAt: Int64

    public init(id: String, patientID: String, kind: Kind, takenAt: Int64, value: Double, secondValue: Double? = nil, unit: String,
                context: Context? = nil, note: String? = nil, createdAt: Int64, updatedAt: Int64) {
        self.id = id
        self.patientID = patientID
        self.kind = kind
        self.takenAt = takenAt
        self.value = value
        self.secondValue = secondValue
        self.unit = unit
        self.context = context
        self.note = note
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Every reading id starts so; no imported entry's does.
    public static let idPrefix = "r_"
    public static func isReadingID(_ id: String) -> Bool { id.hasPrefix(idPrefix) }

    /// The value in the kind's first unit (kg, cm, mm[Hg], /min, mg/dL).
    public var canonicalValue: Double { Self.canonical(value, unit: unit) }

    /// `value` in `unit` converted to its kind's first unit; unchanged when it is already (or unknown).
    public static func canonical(_ value: Double, unit: String) -> Double {
        switch unit {
        case "lb": return value * 0.45359237
        case "in": return value * 2.54
        // Glucose: 1 mmol/L is 18.016 mg/dL (molar mass 180.16 g/mol).
        case "mmol/L": return value * 18.016
        default: return value
        }
    }

    /// The vital-sign readings the timeline shows for it: one, or systolic and diastolic for a blood pressure.
    public var vitalSigns: [StoredEntry] {
        let canonicalUnit = kind.units[0]
        // To two decimals on the timeline: a converted pound is not more exact than that.
        var values = [(canonicalValue * 100).rounded() / 100]
        if let secondValue { values.append(secondValue) }
        return zip(kind.descriptions, values).map { description, value in
            StoredEntry(id: id, type: .vitalSign, description: description, date: takenAt, time: takenAt, startTime: nil, endTime: nil,
                        status: nil, value: value, textValue: nil, units: canonicalUnit, codesJSON: "{}")
        }
    }
}
