import HealthRecord

/// Groups an input's resources by the patient they are about (`subject`, `patient`, `beneficiary`),
/// maps each group, and makes its `PatientRecord`. A resource whose patient is referenced but not in the
/// input makes a patient known only by that reference; one with no patient reference belongs to the
/// input's only patient, or, when there are several, to none.
struct FHIRRecordAssembly {
    let index: FHIRResourceIndex
    /// A patient of this many resources or more is mapped as it is written (`FHIRPendingEntries`).
    let mapsWhileWritingFrom: Int
    /// Resources given more than once in the input, by key: how many times more (merged, in the accounting).
    let repeats: [String: Int]
    private(set) var unowned: [String: Int] = [:]

    init(index: FHIRResourceIndex, mapsWhileWritingFrom: Int = .max, repeats: [String: Int] = [:]) {
        self.index = index
        self.mapsWhileWritingFrom = mapsWhileWritingFrom
        self.repeats = repeats
    }

    private struct Group {
        var patientResource: FHIRResource?
        var referenceDisplay: String?
        var members: [FHIRResource] = []
    }

    mutating func patients() -> [FHIRReader.Patient] {
        // Groups in the order they were first met, found by key.
        var groups: [Group] = []
        var groupKeys: [String] = []
        var groupIndex: [String: Int] = [:]
        var orphans: [FHIRResource] = []
        func group(_ key: String) -> Int {
            if let found = groupIndex[key] { return found }
            groups.append(Group())
            groupKeys.append(key)
            groupIndex[key] = groups.count - 1
            return groups.count - 1
        }
        for resource in index.resources where resource.type == "Patient" {
            groups[group(resource.key)].patientResource = resource
        }
        // Most of an input's resources name the same patient the same way: the last reference's owner is
        // kept, and a resource that names it again costs a comparison instead of lookups by hash. (`#id`
        // names something inside the resource itself, so it is never reused.)
        var last: (target: String, owner: Owner, group: Int?)?
        for resource in index.resources where resource.type != "Patient" {
            let reference = resource.patientReference
            let reusable = reference.map { !$0.target.hasPrefix("#") } ?? false
            let owner: Owner
            let at: Int?
            if reusable, let reference, let last, last.target == reference.target {
                (owner, at) = (last.owner, last.group)
            } else {
                owner = self.owner(of: resource, reference: reference)
                if case let .patient(key) = owner { at = group(key) } else { at = nil }
                if reusable, let reference { last = (reference.target, owner, at) }
            }
            switch owner {
            case .patient:
                guard let at else { continue }
                groups[at].members.append(resource)
                if groups[at].referenceDisplay == nil { groups[at].referenceDisplay = reference?.display }
            case .none:
                orphans.append(resource)
            case .notAPatient:
                unowned[resource.type, default: 0] += 1
            }
        }
        if groups.count == 1 {
            groups[0].members.append(contentsOf: orphans)
        } else {
            for resource in orphans { unowned[resource.type, default: 0] += 1 }
        }
        return groups.indices.map { patient(groupKeys[$0], groups[$0]) }
    }

    private enum Owner {
        /// The group key: the `Patient` resource's key, or the reference of one not in the input.
        case patient(String)
        case none
        case notAPatient
    }

    private func owner(of resource: FHIRResource, reference: FHIRPatientReference?) -> Owner {
        guard let target = reference?.target else {
            // Medication, Organization, Practitioner… are nobody's; clinical resources without a subject are
            // the input's patient's, when it has one.
            return Self.nobodysTypes.contains(resource.type) ? .notAPatient : .none
        }
        if let found = index.resolve(target, from: resource) {
            return found.type == "Patient" ? .patient(found.key) : .notAPatient
        }
        if let key = FHIRResourceIndex.typeAndID(target) {
            return key.hasPrefix("Patient/") ? .patient(key) : .notAPatient
        }
        // `urn:uuid:` of something not in the input: a patient by the reference alone.
        return .patient("Patient/" + target)
    }

    static let nobodysTypes: Set<String> = [
        "Organization", "Practitioner", "PractitionerRole", "Location", "Medication", "Substance", "Endpoint",
        "HealthcareService", "Composition", "Bundle", "ValueSet", "CodeSystem", "StructureDefinition",
    ]

    private func patient(_ key: String, _ group: Group) -> FHIRReader.Patient {
        var patient = FHIRReader.Patient(record: nil, reference: key, hasPatientResource: group.patientResource != nil)
        let mapping = FHIREntryMapping(index: index)
        var entries: [Entry] = []
        var kept: [KeptResource] = []
        do {
            var record: PatientRecord
            if let resource = group.patientResource {
                let d = try FHIRPatientMapping.demographics(resource)
                record = PatientRecord(
                    recordID: FHIRPatientMapping.recordID(d, resource: resource), medicalRecordNumber: d.medicalRecordNumber,
                    firstName: d.first, lastName: d.last, name: d.name, gender: d.gender, birthdate: d.birthdate,
                    otherFieldsJSON: resource.raw
                )
                record.identifiers = d.identifiers + Self.referenceIdentifier(resource.key)
                (record.deceased, record.deceasedDate) = (d.deceased, d.deceasedDate)
            } else {
                // Known only from references (Apple Health's clinical records carry no Patient; a Bulk Data
                // export's files uploaded one by one).
                record = PatientRecord(recordID: "fhir:" + key, name: nonEmpty(group.referenceDisplay) ?? "")
                record.identifiers = Self.referenceIdentifier(key)
                patient.warnings.append("\(key) is not in the input: the person is known only by this reference")
            }
            // A long record's resources that become entries are mapped as the store writes them; the rest (kept,
            // entered in error) now, as the person's kept resources are written before the entries.
            let deferred = group.members.count >= mapsWhileWritingFrom
            var pending: [FHIRResource] = []
            var notes = FHIRMappingNotes()
            if !deferred { entries.reserveCapacity(group.members.count) }
            for resource in group.members {
                let isMapped = FHIREntryMapping.mappedTypes.contains(resource.type)
                if isMapped, let again = repeats[resource.key] {
                    patient.accounting.found(again)
                    patient.accounting.merged += again
                }
                if deferred, isMapped {
                    pending.append(resource)
                    continue
                }
                let mapped = try mapping.map(resource, notes: &notes)
                if isMapped { patient.accounting.account(mapped) }
                switch mapped {
                case let .entries(mapped):
                    for entry in mapped { patient.shown[entry.type, default: 0] += 1 }
                    entries.append(contentsOf: mapped)
                case .kept:
                    patient.kept[resource.type, default: 0] += 1
                    kept.append(KeptResource(id: resource.key, type: resource.type, rawJSON: resource.raw))
                case .enteredInError:
                    patient.enteredInError += 1
                }
            }
            patient.warnings += notes.messages
            record.entries = entries
            record.keptResources = kept
            patient.record = record
            if deferred { patient.pending = FHIRPendingEntries(members: pending, index: index) }
        } catch {
            patient.error = FHIRInput.describe(error)
            patient.shown = [:]
            patient.kept = [:]
            patient.accounting = ImportAccounting()
        }
        return patient
    }

    /// The system of the identifier that records a patient's own resource reference (`Patient/abc…`).
    static let referenceSystem = "urn:hreaderd:fhir-patient-reference"
    /// Shorter ids (`Patient/1`) are reused by every server: they are not trusted to name one person
    /// across files. Synthea's UUIDs, Epic's and Cerner's ids are longer.
    static let minimumReferenceIDLength = 16

    /// The patient's own reference as an identifier, so that a later file that only refers to
    /// `Patient/{id}` (the next file of a Bulk Data export, uploaded on its own) finds the same person,
    /// and a later file with the `Patient` finds the person first known by reference.
    static func referenceIdentifier(_ key: String) -> [PatientIdentifier] {
        guard key.hasPrefix("Patient/"), key.utf8.count - 8 >= minimumReferenceIDLength, !key.contains("urn:") else { return [] }
        return [PatientIdentifier(system: referenceSystem, value: key)]
    }
}

extension ImportAccounting {
    /// One resource of a mapped type, as it was mapped.
    mutating func account(_ mapped: FHIRMapped) {
        found()
        switch mapped {
        case let .entries(entries) where entries.isEmpty: leave(.noEntry)
        case .entries: imported += 1
        case .kept: leave(.keptNotShown)
        case .enteredInError: leave(.enteredInError)
        }
    }
}
