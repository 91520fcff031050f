import HealthRecord

/// `Patient` → the person: name, gender, birth date and identifiers.
enum FHIRPatientMapping {
    struct Demographics {
        var name: String
        var first: String?
        var last: String?
        var gender: String?
        var birthdate: Int64?
        var identifiers: [PatientIdentifier]
        var medicalRecordNumber: String?
        /// The identifier typed `MR`, with its system (Synthea gives the same value under two systems).
        var medicalRecordIdentifier: PatientIdentifier?
        /// `deceasedBoolean` or `deceasedDateTime` (which says both that and when); nil when neither is given.
        var deceased: Bool?
        var deceasedDate: Int64?
    }

    static func demographics(_ resource: FHIRResource) throws -> Demographics {
        let r = resource.element
        let names = try r.elements("name")
        let name = try names.first(where: { try $0.string("use") == "official" }) ?? names.first
        let given = try name?.strings("given").filter { !$0.isEmpty } ?? []
        let family = try name.flatMap { try nonEmpty($0.string("family")) }
        let text = try name.flatMap { try nonEmpty($0.string("text")) }
        let full = [given.joined(separator: " "), family ?? ""].filter { !$0.isEmpty }.joined(separator: " ")

        var identifiers: [PatientIdentifier] = []
        var mrn: PatientIdentifier?
        for identifier in try r.elements("identifier") {
            guard let value = try nonEmpty(identifier.string("value")) else { continue }
            let system = try identifier.string("system") ?? ""
            identifiers.append(PatientIdentifier(system: system, value: value))
            if mrn == nil, let type = try identifier.codeableConcept("type"), type.has(code: "MR") {
                mrn = PatientIdentifier(system: system, value: value)
            }
        }
        let deceasedDate = try r.date("deceasedDateTime")
        return Demographics(
            name: text ?? full, first: given.isEmpty ? nil : given.joined(separator: " "), last: family,
            gender: gender(try r.string("gender")), birthdate: try r.date("birthDate"),
            identifiers: identifiers, medicalRecordNumber: mrn?.value, medicalRecordIdentifier: mrn,
            deceased: deceasedDate != nil ? true : try r.bool("deceasedBoolean"), deceasedDate: deceasedDate
        )
    }

    /// FHIR's `male`/`female` as the store's (and RHEx's) `M`/`F`; `other` and `unknown` as they are.
    static func gender(_ code: String?) -> String? {
        switch code {
        case "male"?: return "M"
        case "female"?: return "F"
        case let other?: return other.isEmpty ? nil : other
        case nil: return nil
        }
    }

    /// The identity of the record within its source: the medical record number's identifier, else the
    /// first identifier, else the resource; `system|value`.
    static func recordID(_ demographics: Demographics, resource: FHIRResource) -> String {
        if let identifier = demographics.medicalRecordIdentifier {
            return "fhir:" + identifier.system + "|" + identifier.value
        }
        if let identifier = demographics.identifiers.first {
            return "fhir:" + identifier.system + "|" + identifier.value
        }
        return "fhir:" + resource.key
    }
}
