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
}
