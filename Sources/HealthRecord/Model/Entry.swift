/// One normalised clinical entry of a patient's record, with its raw source JSON so nothing is lost.
public struct Entry: Sendable, Equatable {
    /// Stable within the patient: derived from the section and the source `_id` (plus an occurrence number
    /// when a source repeats an `_id`), else from a hash of section, codes, times and description.
    public var id: String
    public var type: EntryType
    public var description: String?
    /// Epoch seconds; may be negative (before 1970).
    public var time: Int64?
    public var startTime: Int64?
    public var endTime: Int64?
    /// The source's status word, lower case; nil when the source has none.
    public var status: String?
    /// The numeric value of a measurement, when it has one.
    public var value: Double?
    /// A non-numeric scalar (`"Positive"`) is kept here instead of `value`.
    public var textValue: String?
    public var units: String?
    /// Code system → codes, e.g. `["SNOMED-CT": ["42343007"]]`.
    public var codes: [String: [String]]
    /// The entry's `_id` in the source, when it has one.
    public var sourceID: String?
    /// The entry exactly as the source sent it (compact JSON).
    public var rawJSON: String
    /// What the source gave as a result's normal range; nil when it gave none.
    public var referenceRange: ReferenceRange?
    /// The source's interpretation of the value (`ResultInterpretation`: "H", "LL", "N"…); nil when it gave none.
    public var interpretation: String?
    /// The source's own note on the entry (FHIR `note`, C-CDA's comment), as text.
    public var sourceNote: String?

    public init(
        id: String, type: EntryType, description: String? = nil,
        time: Int64? = nil, startTime: Int64? = nil, endTime: Int64? = nil,
        status: String? = nil, value: Double? = nil, textValue: String? = nil, units: String? = nil,
        codes: [String: [String]] = [:], sourceID: String? = nil, rawJSON: String = "{}",
        referenceRange: ReferenceRange? = nil, interpretation: String? = nil, sourceNote: String? = nil
    ) {
        self.referenceRange = referenceRange
        self.interpretation = interpretation
        self.sourceNote = sourceNote
        self.id = id
        self.type = type
        self.description = description
        self.time = time
        self.startTime = startTime
        self.endTime = endTime
        self.status = status
        self.value = value
        self.textValue = textValue
        self.units = units
        self.codes = codes
        self.sourceID = sourceID
        self.rawJSON = rawJSON
    }

    /// The timeline date: the first of time, start, end that exists.
    public var date: Int64? { time ?? startTime ?? endTime }

    /// The longest source note kept (characters): a note is a few sentences; the raw JSON keeps the rest.
    public static let sourceNoteLimit = 4_000

    /// Types that can be ongoing across a window (a chronic condition, a long-running medication).
    public static let ongoingTypes: Set<EntryType> = [.condition, .medication, .allergy]
    /// Statuses that end an entry: such an entry is never ongoing.
    /// RHEx's words, and FHIR's for a medication that ended (`stopped`) or was never taken (`not-taken`).
    public static let closedStatuses: Set<String> = [
        "resolved", "inactive", "completed", "cancelled", "aborted", "stopped", "not-taken",
    ]

    /// Whether the entry can be ongoing: an ongoing type whose status is not closed.
    public var canBeOngoing: Bool {
        Self.ongoingTypes.contains(type) && !(status.map { Self.closedStatuses.contains($0.lowercased()) } ?? false)
    }

    /// Stored for the ongoing index: the end, or Int64.max when open-ended; nil when it can never be ongoing.
    package var ongoingEnd: Int64? { canBeOngoing ? (endTime ?? Int64.max) : nil }
}
