/// What one import of one patient record changed.
public struct ImportSummary: Sendable, Equatable {
    public enum PatientChange: String, Sendable { case added, updated, unchanged }

    public var patientID: String
    public var patient: PatientChange
    public var entriesAdded = 0
    public var entriesUpdated = 0
    public var entriesUnchanged = 0
    public var entriesRemoved = 0

    public init(patientID: String, patient: PatientChange) {
        self.patientID = patientID
        self.patient = patient
    }

    public var changedAnything: Bool {
        patient != .unchanged || entriesAdded + entriesUpdated + entriesRemoved > 0
    }
}
