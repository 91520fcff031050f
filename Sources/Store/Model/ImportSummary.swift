import HealthRecord

/// What one import of one patient record changed.
public struct ImportSummary: Sendable, Equatable {
    public enum PatientChange: String, Sendable { case added, updated, unchanged }

    /// Entries of one type that an import added, updated, left unchanged or removed.
    public struct EntryChanges: Sendable, Equatable {
        public var added = 0, updated = 0, unchanged = 0, removed = 0
        public init() {}
    }

    public var patientID: String
    public var patient: PatientChange
    public var entriesAdded = 0
    public var entriesUpdated = 0
    public var entriesUnchanged = 0
    public var entriesRemoved = 0
    /// Entries an older document said otherwise than a newer one already had: left as the newer one said.
    public var entriesKeptNewer = 0
    /// Documents (C-CDA, C32) new to the store.
    public var documentsAdded = 0
    /// The record was left out: a person removed this patient, and the source (a sync) does not bring it back.
    public var skippedAsRemoved = false
    /// The same counts by entry type (indexed by `EntryType.allCases` order; see `changes(of:)`).
    var byType = [EntryChanges](repeating: EntryChanges(), count: EntryType.allCases.count)

    public init(patientID: String, patient: PatientChange) {
        self.patientID = patientID
        self.patient = patient
    }

    public var changedAnything: Bool {
        patient != .unchanged || entriesAdded + entriesUpdated + entriesRemoved + documentsAdded > 0
    }

    public func changes(of type: EntryType) -> EntryChanges { byType[type.ordinal] }
}

extension EntryType {
    /// The type's place in `allCases`, for arrays indexed by type.
    var ordinal: Int {
        switch self {
        case .allergy: 0
        case .condition: 1
        case .encounter: 2
        case .immunization: 3
        case .medication: 4
        case .procedure: 5
        case .result: 6
        case .vitalSign: 7
        case .socialHistory: 8
        case .careGoal: 9
        case .medicalEquipment: 10
        }
    }
}
