import HealthRecord

/// How an import treats what the store already holds of a patient.
public struct ImportOptions: Sendable, Equatable {
    public enum Mode: String, Sendable {
        /// The record is the whole of the patient's part of this source: entries it no longer has are
        /// removed (an RHEx sync, an RHEx record file, a FHIR import said to be a full replacement).
        case replace
        /// The record adds and updates: nothing already stored is removed, and demographics the record
        /// does not give are kept (an ordinary FHIR file, which may hold only part of a record).
        case merge
    }

    public var mode: Mode
    /// Import into this patient, whatever the record's own identity says (`import-file --patient`).
    public var patientID: String?

    public init(mode: Mode = .replace, patientID: String? = nil) {
        self.mode = mode
        self.patientID = patientID
    }

    public static let replace = ImportOptions(mode: .replace)
    public static let merge = ImportOptions(mode: .merge)
}
