/// What a person wrote on an entry of their record: a note, "this is wrong" (struck through, with an
/// optional reason), and for a medication their own quantity, dose, directions and prescriber. Kept apart
/// from the imported data, keyed by the entry's stable id: it survives every re-import and sync.
public struct Annotation: Sendable, Equatable {
    public struct Medication: Sendable, Equatable {
        public var quantity: String?
        public var dose: String?
        public var directions: String?
        public var prescriber: String?

        public init(quantity: String? = nil, dose: String? = nil, directions: String? = nil, prescriber: String? = nil) {
            self.quantity = quantity
            self.dose = dose
            self.directions = directions
            self.prescriber = prescriber
        }

        public var isEmpty: Bool { quantity == nil && dose == nil && directions == nil && prescriber == nil }
    }

    public var entryID: String
    public var note: String?
    /// "Not mine / wrong": the entry is shown struck through (and can be hidden).
    public var struck: Bool
    public var reason: String?
    public var medication: Medication?
    public var createdAt: Int64
    public var updatedAt: Int64
    /// The entry is no longer in the record (a newer import removed it); the annotation stays.
    public var orphaned: Bool
    /// What the entry was when the annotation was last written (type, description, date): how an
    /// orphaned annotation says what it was on.
    public var entryType: EntryType?
    public var entryDescription: String?
    public var entryDate: Int64?

    /// Nothing written: no note, not struck, no reason, no medication details.
    public var isEmpty: Bool { note == nil && !struck && reason == nil && (medication?.isEmpty ?? true) }

    public init(entryID: String, note: String? = nil, struck: Bool = false, reason: String? = nil, medication: Medication? = nil,
                createdAt: Int64 = 0, updatedAt: Int64 = 0, orphaned: Bool = false) {
        self.entryID = entryID
        self.note = note
        self.struck = struck
        self.reason = reason
        self.medication = medication
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.orphaned = orphaned
    }
}
