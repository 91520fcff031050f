/// An entry as the timeline reads it: the normalised fields, with the codes still as their stored
/// canonical JSON (the timeline inlines them without decoding), and without the raw source JSON.
public struct StoredEntry: Sendable, Equatable {
    public var id: String
    public var type: EntryType
    public var description: String?
    public var date: Int64?
    public var time: Int64?
    public var startTime: Int64?
    public var endTime: Int64?
    public var status: String?
    public var value: Double?
    public var textValue: String?
    public var units: String?
    public var codesJSON: String
    public var referenceRange: ReferenceRange?
    public var interpretation: String?
    public var sourceNote: String?

    public init(id: String, type: EntryType, description: String?, date: Int64?, time: Int64?, startTime: Int64?,
                endTime: Int64?, status: String?, value: Double?, textValue: String?, units: String?, codesJSON: String,
                referenceRange: ReferenceRange? = nil, interpretation: String? = nil, sourceNote: String? = nil) {
        self.referenceRange = referenceRange
        self.interpretation = interpretation
        self.sourceNote = sourceNote
        self.id = id
        self.type = type
        self.description = description
        self.date = date
        self.time = time
        self.startTime = startTime
        self.endTime = endTime
        self.status = status
        self.value = value
        self.textValue = textValue
        self.units = units
        self.codesJSON = codesJSON
    }

    /// Whether the value lies outside its range as the source said it: its interpretation flags it, or the
    /// value falls outside the range's bounds.
    public var isOutsideRange: Bool {
        if ResultInterpretation.isFlagged(interpretation) { return true }
        guard let value, let placement = referenceRange?.place(value, unit: units) else { return false }
        return placement != .within
    }
}
