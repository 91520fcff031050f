import HealthRecord

/// What modules read of one person: the patient, the entries of the types asked for (oldest first; the
/// ones the person struck out as wrong left out), their own readings and posts, their annotations, and
/// the reactions and severities of allergies (read from each format's source by the caller).
public struct ModuleRecord: Sendable {
    public var patient: Patient
    /// Epoch seconds: "now" for ages and for how long ago something was recorded.
    public var now: Int64
    /// The daemon's offset from UTC in seconds, for the dates a message names.
    public var utcOffset: Int64
    public let entries: [EntryType: [StoredEntry]]
    public let readings: [Reading]
    /// The record's measurements by measure (vital signs, results and readings), found once for every
    /// module that reads them.
    public let measurements: Measurements
    public var posts: [TimelinePost]
    public var annotations: [String: Annotation]
    public var allergyDetails: [String: AllergyDetail]

    /// `measurements`: gathered as the entries were read (`MeasurementCollector`), readings included; without
    /// them, they are found in `entries` and `readings`.
    public init(patient: Patient, now: Int64, utcOffset: Int64 = 0, entries: [EntryType: [StoredEntry]] = [:], readings: [Reading] = [],
                measurements: Measurements? = nil,
                posts: [TimelinePost] = [], annotations: [String: Annotation] = [:], allergyDetails: [String: AllergyDetail] = [:]) {
        self.patient = patient
        self.now = now
        self.utcOffset = utcOffset
        self.entries = entries
        self.readings = readings
        self.measurements = measurements ?? Measurements(entries: entries, readings: readings)
        self.posts = posts
        self.annotations = annotations
        self.allergyDetails = allergyDetails
    }

    public func entries(_ type: EntryType) -> [StoredEntry] { entries[type] ?? [] }

    /// Age in years now, or at death for a person who has died (ages never count past it); nil without a
    /// birth date.
    public var age: Double? { patient.birthdate.map { Age.years(from: $0, to: patient.ageTime(now: now)) } }

    /// "Nov 20, 2026": a day as messages name it, in the daemon's time zone.
    public func day(_ time: Int64) -> String { CivilDate(epochSeconds: time + utcOffset).shown }

    /// A reading older than this is said with its age: a 2007 blood pressure is not today's.
    public static let oldAfter: Int64 = 365 * 86_400

    /// "Nov 20, 2026", and for a reading older than a year how old it is: "Jan 5, 2007 (19 years ago)".
    public func dayWithAge(_ time: Int64) -> String {
        let shown = day(time)
        return now - time > Self.oldAfter ? "\(shown) (\(Numbers.span(now - time)) ago)" : shown
    }

    /// " Talk to a clinician …": a sentence of advice (a suggestion, a nudge to add a reading), with its
    /// leading space; none for a person who has died.
    public func advice(_ sentence: String) -> String { patient.deceased ? "" : " " + sentence }

    /// "No weight recorded yet." of a living person; of one who has died, "No weight recorded.": nothing
    /// more will come.
    public func none(_ sentence: String) -> String { sentence + (patient.deceased ? "." : " yet.") }
}

/// What a record says of an allergy beyond its substance.
public struct AllergyDetail: Sendable, Equatable {
    public var reaction: String?
    public var severity: String?
    public init(reaction: String? = nil, severity: String? = nil) {
        self.reaction = reaction
        self.severity = severity
    }
}
