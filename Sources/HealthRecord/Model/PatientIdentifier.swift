/// An identifier a source gives a person (FHIR `Patient.identifier`: system + value): how a later
/// import from the same source finds the same patient, whatever the file's own resource ids.
public struct PatientIdentifier: Sendable, Hashable {
    public var system: String
    public var value: String

    public init(system: String, value: String) {
        self.system = system
        self.value = value
    }
}

/// A source resource that is the patient's but is not shown on the timeline (a claim, a diagnostic
/// report, a care team…): kept verbatim with the patient, and in the export, so nothing is lost and a
/// better mapping later can read it.
public struct KeptResource: Sendable, Equatable {
    /// `Claim/123`
    public var id: String
    public var type: String
    public var rawJSON: String

    public init(id: String, type: String, rawJSON: String) {
        self.id = id
        self.type = type
        self.rawJSON = rawJSON
    }
}
