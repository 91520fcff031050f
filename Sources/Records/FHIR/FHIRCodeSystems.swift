/// FHIR names code systems by URI (and older sources by `urn:oid:`); the store, like RHEx, names them
/// `SNOMED-CT`, `LOINC`, `RxNorm`… so that a code reads the same whichever format brought it. A system
/// not listed keeps its URI.
enum FHIRCodeSystems {
    static let names: [String: String] = [
        "http://snomed.info/sct": "SNOMED-CT",
        "urn:oid:2.16.840.1.113883.6.96": "SNOMED-CT",
        "http://loinc.org": "LOINC",
        "urn:oid:2.16.840.1.113883.6.1": "LOINC",
        "http://www.nlm.nih.gov/research/umls/rxnorm": "RxNorm",
        "urn:oid:2.16.840.1.113883.6.88": "RxNorm",
        "http://hl7.org/fhir/sid/cvx": "CVX",
        "urn:oid:2.16.840.1.113883.12.292": "CVX",
        "http://hl7.org/fhir/sid/icd-10-cm": "ICD-10-CM",
        "urn:oid:2.16.840.1.113883.6.90": "ICD-10-CM",
        "http://hl7.org/fhir/sid/icd-10": "ICD-10",
        "http://hl7.org/fhir/sid/icd-9-cm": "ICD-9-CM",
        "urn:oid:2.16.840.1.113883.6.103": "ICD-9-CM",
        // ICD-9-CM volume 3 (procedures): RHEx records file its codes under ICD-9-CM too.
        "urn:oid:2.16.840.1.113883.6.104": "ICD-9-CM",
        "urn:oid:2.16.840.1.113883.6.4": "ICD-10-PCS",
        "http://www.cms.gov/Medicare/Coding/ICD10": "ICD-10-PCS",
        "urn:oid:2.16.840.1.113883.6.14": "HCPCS",
        "urn:oid:2.16.840.1.113883.6.285": "HCPCS",
        "http://www.ama-assn.org/go/cpt": "CPT",
        "urn:oid:2.16.840.1.113883.6.12": "CPT",
        "http://hl7.org/fhir/sid/ndc": "NDC",
        "urn:oid:2.16.840.1.113883.6.69": "NDC",
        "http://unitsofmeasure.org": "UCUM",
        "http://www.ama-assn.org/go/cpt/": "CPT",
    ]

    /// The store's name of a code system; the URI itself when it has none, "unknown" when absent.
    static func name(_ system: String?) -> String {
        guard let system, !system.isEmpty else { return "unknown" }
        return names[system] ?? system
    }
}
