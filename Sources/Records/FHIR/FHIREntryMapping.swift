import HealthRecord

/// What one resource becomes: entries on the timeline, or kept (stored with the patient and in the
/// export, not shown), or left out because its source says it was entered in error.
enum FHIRMapped {
    case entries([Entry])
    case kept
    case enteredInError
}

/// Resource → entries, one function a resource type. `docs/import-mapping.md` is this file as tables;
/// keep them together.
struct FHIREntryMapping {
    let index: FHIRResourceIndex

    /// The resource types that become entries; every other one is kept, not shown.
    static let mappedTypes: Set<String> = [
        "AllergyIntolerance", "Condition", "Encounter", "Immunization", "MedicationRequest", "MedicationStatement",
        "MedicationAdministration", "Procedure", "Observation", "CarePlan", "Goal", "Device", "DeviceUseStatement",
    ]

    /// `notes` gathers what was imported only in part (for the report's warnings).
    func map(_ resource: FHIRResource, notes: inout FHIRMappingNotes) throws -> FHIRMapped {
        // Parsed once here: each entry of the resource keeps its compact JSON.
        let resource = resource.parsed()
        let r = resource.element
        // `status` on most resources, `lifecycleStatus` on Goal.
        if try r.string("status") == "entered-in-error" || r.string("lifecycleStatus") == "entered-in-error" {
            return .enteredInError
        }
        guard Self.mappedTypes.contains(resource.type) else { return .kept }
        if try Self.isAbsentUnknown(r) { return .kept }
        switch resource.type {
        case "AllergyIntolerance": return try allergy(resource, r)
        case "Condition": return try condition(resource, r)
        case "Encounter": return try encounter(resource, r)
        case "Immunization": return try immunization(resource, r)
        case "MedicationRequest", "MedicationStatement", "MedicationAdministration":
            return try FHIRMedicationMapping(index: index).medication(resource, r)
        case "Procedure": return try procedure(resource, r)
        case "Observation": return try FHIRObservationMapping.observation(resource, r, notes: &notes)
        case "CarePlan": return try carePlan(resource, r)
        case "Goal": return try goal(resource, r)
        case "Device": return try device(resource, r)
        case "DeviceUseStatement": return try deviceUse(resource, r)
        default: return .kept
        }
    }

    /// IPS's code system for "no information about allergies" and the like.
    static let absentUnknownSystem = "http://hl7.org/fhir/uv/ips/CodeSystem/absent-unknown-uv-ips"

    /// An IPS placeholder (the one entry of an empty required section, coded only with IPS's absent/unknown
    /// codes): it says there is nothing to show, so it is kept, not shown.
    static func isAbsentUnknown(_ r: FHIRElement) throws -> Bool {
        for key in placeholderConcepts {
            if let concept = try r.element(key), try CodeableConcept.isCoded(concept, onlyIn: absentUnknownSystem) { return true }
        }
        return false
    }

    /// The concepts a placeholder is coded in.
    private static let placeholderConcepts = ["code", "medicationCodeableConcept", "vaccineCode"]

    /// An entry of `resource` with the fields every mapping sets the same way.
    static func entry(_ resource: FHIRResource, _ type: EntryType, concept: CodeableConcept?, part: String? = nil,
                      time: Int64? = nil, start: Int64? = nil, end: Int64? = nil, status: String?) -> Entry {
        var parts = ["fhir", resource.key]
        if let part { parts.append(part) }
        return Entry(
            id: StableID.make("e", parts), type: type, description: concept?.description,
            time: time, startTime: start, endTime: end, status: nonEmpty(status)?.lowercased(),
            codes: concept?.codes ?? [:], sourceID: resource.key, rawJSON: resource.raw
        )
    }

    /// The first code of a `CodeableConcept` status (`clinicalStatus`), or a plain `status` code.
    static func status(_ r: FHIRElement, concept key: String? = nil) throws -> String? {
        if let key, let concept = try r.codeableConcept(key), let code = concept.code() { return code }
        return try r.string("status")
    }

    /// `verificationStatus` says the whole resource was a mistake.
    static func refuted(_ r: FHIRElement) throws -> Bool {
        guard let verification = try r.codeableConcept("verificationStatus") else { return false }
        return verification.has(code: "entered-in-error")
    }

    private func allergy(_ resource: FHIRResource, _ r: FHIRElement) throws -> FHIRMapped {
        if try Self.refuted(r) { return .enteredInError }
        let onset = try r.date("onsetDateTime") ?? r.period("onsetPeriod")?.start
        let start = try onset ?? r.date("recordedDate")
        return .entries([Self.entry(resource, .allergy, concept: try r.codeableConcept("code"), start: start,
                                    status: try Self.status(r, concept: "clinicalStatus"))])
    }

    private func condition(_ resource: FHIRResource, _ r: FHIRElement) throws -> FHIRMapped {
        if try Self.refuted(r) { return .enteredInError }
        let onset = try r.date("onsetDateTime") ?? r.period("onsetPeriod")?.start
        let start = try onset ?? r.date("recordedDate")
        let abatementPeriod = try r.period("abatementPeriod")
        let end = try r.date("abatementDateTime") ?? abatementPeriod?.end ?? abatementPeriod?.start
        return .entries([Self.entry(resource, .condition, concept: try r.codeableConcept("code"), start: start, end: end,
                                    status: try Self.status(r, concept: "clinicalStatus"))])
    }

    private func encounter(_ resource: FHIRResource, _ r: FHIRElement) throws -> FHIRMapped {
        let period = try r.period("period")
        var concept = try r.codeableConcepts("type").first ?? r.codeableConcept("serviceType")
        if concept?.description == nil, let kind = try r.element("class") {
            // `class` is a Coding: "ambulatory", "emergency"…
            concept = try CodeableConcept(kind)
        }
        return .entries([Self.entry(resource, .encounter, concept: concept, start: period?.start, end: period?.end,
                                    status: try r.string("status"))])
    }

    private func immunization(_ resource: FHIRResource, _ r: FHIRElement) throws -> FHIRMapped {
        let time = try r.date("occurrenceDateTime") ?? r.date("recorded")
        return .entries([Self.entry(resource, .immunization, concept: try r.codeableConcept("vaccineCode"), time: time,
                                    status: try r.string("status"))])
    }

    private func procedure(_ resource: FHIRResource, _ r: FHIRElement) throws -> FHIRMapped {
        let period = try r.period("performedPeriod")
        return .entries([Self.entry(resource, .procedure, concept: try r.codeableConcept("code"),
                                    time: try r.date("performedDateTime"), start: period?.start, end: period?.end,
                                    status: try r.string("status"))])
    }

    private func carePlan(_ resource: FHIRResource, _ r: FHIRElement) throws -> FHIRMapped {
        let period = try r.period("period")
        // Synthea's plans say what they are in their second category ("Asthma self management"); the
        // first is the generic "assess-plan".
        var concept = try r.codeableConcepts("category").last(where: { $0.description != nil })
        if let title = try nonEmpty(r.string("title")) ?? nonEmpty(r.string("description")) {
            concept = CodeableConcept(text: title, codings: concept?.codings ?? [])
        }
        return .entries([Self.entry(resource, .careGoal, concept: concept, start: period?.start, end: period?.end,
                                    status: try r.string("status"))])
    }

    private func goal(_ resource: FHIRResource, _ r: FHIRElement) throws -> FHIRMapped {
        let due = try r.elements("target").first?.date("dueDate")
        return .entries([Self.entry(resource, .careGoal, concept: try r.codeableConcept("description"),
                                    start: try r.date("startDate"), end: due, status: try r.string("lifecycleStatus"))])
    }

    private func device(_ resource: FHIRResource, _ r: FHIRElement) throws -> FHIRMapped {
        var concept = try r.codeableConcept("type")
        if concept?.description == nil, let name = try r.elements("deviceName").first?.string("name") {
            concept = CodeableConcept(text: name, codings: concept?.codings ?? [])
        }
        return .entries([Self.entry(resource, .medicalEquipment, concept: concept, start: try r.date("manufactureDate"),
                                    status: try r.string("status"))])
    }

    private func deviceUse(_ resource: FHIRResource, _ r: FHIRElement) throws -> FHIRMapped {
        var concept: CodeableConcept?
        if let reference = try r.reference("device"), let device = index.resolve(reference, from: resource) {
            concept = try device.element.codeableConcept("type")
        }
        let period = try r.period("timingPeriod")
        let time = try period == nil ? (r.date("timingDateTime") ?? r.date("recordedOn")) : nil
        return .entries([Self.entry(resource, .medicalEquipment, concept: concept, time: time, start: period?.start,
                                    end: period?.end, status: try r.string("status"))])
    }
}

extension CodeableConcept {
    init(text: String?, codings: [Coding]) {
        self.text = text
        self.codings = codings
    }
}
