/// What the mapping of a patient's resources imported only in part, for the import report's warnings: a
/// reference range in words only, an interpretation code of another system. One line a kind of note and
/// value, however often it happens, at most `maximum` (C-CDA's reader warns the same things the same way).
public struct FHIRMappingNotes: Sendable, Equatable {
    public private(set) var messages: [String] = []

    public static let maximum = 20

    public init() {}

    mutating func add(_ message: String) {
        if messages.count < Self.maximum, !messages.contains(message) { messages.append(message) }
    }
}
