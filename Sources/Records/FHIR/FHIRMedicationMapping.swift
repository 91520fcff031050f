import HealthRecord

/// `MedicationRequest`, `MedicationStatement` and `MedicationAdministration` → medications. The drug is
/// `medicationCodeableConcept`, or `medicationReference` resolved to a `Medication` in the same input or
/// `contained` in the resource; an unresolved reference keeps its `display`.
struct FHIRMedicationMapping {
    let index: FHIRResourceIndex

    func medication(_ resource: FHIRResource, _ r: FHIRElement) throws -> FHIRMapped {
        let concept = try drug(resource, r)
        let status = try r.string("status")
        switch resource.type {
        case "MedicationRequest":
            let validity = try r.element("dispenseRequest")?.period("validityPeriod")
            return .entries([FHIREntryMapping.entry(resource, .medication, concept: concept,
                                                    start: try r.date("authoredOn") ?? validity?.start, end: validity?.end,
                                                    status: status)])
        case "MedicationStatement":
            let period = try r.period("effectivePeriod")
            let start = try period?.start ?? r.date("effectiveDateTime") ?? r.date("dateAsserted")
            return .entries([FHIREntryMapping.entry(resource, .medication, concept: concept, start: start, end: period?.end,
                                                    status: status)])
        default: // MedicationAdministration: given at a time, or over a period.
            let period = try r.period("effectivePeriod")
            return .entries([FHIREntryMapping.entry(resource, .medication, concept: concept,
                                                    time: try r.date("effectiveDateTime"), start: period?.start,
                                                    end: period?.end, status: status)])
        }
    }

    private func drug(_ resource: FHIRResource, _ r: FHIRElement) throws -> CodeableConcept? {
        if let concept = try r.codeableConcept("medicationCodeableConcept") { return concept }
        guard let reference = try r.element("medicationReference") else { return nil }
        let display = try reference.string("display")
        if let target = try reference.string("reference"), let medication = index.resolve(target, from: resource),
           medication.type == "Medication", let code = try medication.element.codeableConcept("code") {
            return code.description == nil ? CodeableConcept(text: display, codings: code.codings) : code
        }
        return CodeableConcept(text: display, codings: [])
    }
}
