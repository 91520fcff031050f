/// A small transaction Bundle written the way Synthea writes one: entries with `urn:uuid:` fullUrls that
/// the resources refer to, alongside plain `Patient/ID` references.
///
/// Alice: the Patient, 3 Observations (2 vital signs, 1 laboratory), 2 Conditions (one without an id: it
/// takes the fullUrl's), a MedicationRequest naming a Medication, an AllergyIntolerance, an Immunization:
/// 9 resources, and the Medication with them in `$everything`. Bob: the Patient, an Observation, an
/// Encounter. An Organization belongs to nobody.
enum TestData {
    static let alice = "alice"
    static let bob = "bob"
    static let aliceResources = 9
    static let bobResources = 3

    static let aliceURL = "urn:uuid:0a1b2c3d-0000-4000-8000-000000000001"
    static let bobURL = "urn:uuid:0a1b2c3d-0000-4000-8000-000000000002"
    static let medicationURL = "urn:uuid:0a1b2c3d-0000-4000-8000-000000000003"

    static let bundle: [UInt8] = Array(text.utf8)

    static let text = """
        {"resourceType":"Bundle","type":"transaction","entry":[
        {"fullUrl":"\(aliceURL)","resource":{"resourceType":"Patient","id":"alice","name":[{"use":"official","family":"Liddell","given":["Alice"]}],"birthDate":"2015-03-04","meta":{"profile":["http://hl7.org/fhir/us/core/StructureDefinition/us-core-patient"]}},"request":{"method":"POST","url":"Patient"}},
        {"fullUrl":"\(bobURL)","resource":{"resourceType":"Patient","id":"bob","name":[{"family":"Builder","given":["Bob"]}],"birthDate":"1980-01-02"},"request":{"method":"POST","url":"Patient"}},
        {"fullUrl":"urn:uuid:obs-1","resource":{"resourceType":"Observation","id":"obs-1","status":"final","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"vital-signs"}]}],"code":{"coding":[{"system":"http://loinc.org","code":"8302-2","display":"Body Height"}]},"subject":{"reference":"\(aliceURL)"},"effectiveDateTime":"2020-01-01T10:00:00Z","valueQuantity":{"value":120.50,"unit":"cm","system":"http://unitsofmeasure.org","code":"cm"}}},
        {"fullUrl":"urn:uuid:obs-2","resource":{"resourceType":"Observation","id":"obs-2","status":"final","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"laboratory"}]}],"code":{"coding":[{"system":"http://loinc.org","code":"2339-0","display":"Glucose"}]},"subject":{"reference":"\(aliceURL)"},"valueQuantity":{"value":5.4e0,"unit":"mmol/L"}}},
        {"fullUrl":"urn:uuid:obs-3","resource":{"resourceType":"Observation","id":"obs-3","status":"final","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"vital-signs"}]}],"code":{"coding":[{"system":"http://loinc.org","code":"29463-7","display":"Body Weight"}]},"subject":{"reference":"Patient/alice"},"valueQuantity":{"value":22,"unit":"kg"}}},
        {"fullUrl":"urn:uuid:cond-1","resource":{"resourceType":"Condition","id":"cond-1","code":{"coding":[{"system":"http://snomed.info/sct","code":"195967001","display":"Asthma"}]},"subject":{"reference":"\(aliceURL)"}}},
        {"fullUrl":"urn:uuid:cond-2","resource":{"resourceType":"Condition","code":{"text":"Hay fever \\u00e9t\\u00e9 \\"seasonal\\""},"subject":{"reference":"\(aliceURL)"}}},
        {"fullUrl":"\(medicationURL)","resource":{"resourceType":"Medication","id":"med-1","code":{"coding":[{"system":"http://www.nlm.nih.gov/research/umls/rxnorm","code":"895994","display":"Albuterol inhaler"}]}}},
        {"fullUrl":"urn:uuid:mr-1","resource":{"resourceType":"MedicationRequest","id":"mr-1","status":"active","intent":"order","medicationReference":{"reference":"\(medicationURL)"},"subject":{"reference":"\(aliceURL)"}}},
        {"fullUrl":"urn:uuid:ai-1","resource":{"resourceType":"AllergyIntolerance","id":"ai-1","category":["food"],"code":{"text":"Peanut"},"patient":{"reference":"\(aliceURL)"}}},
        {"fullUrl":"urn:uuid:imm-1","resource":{"resourceType":"Immunization","id":"imm-1","status":"completed","vaccineCode":{"text":"MMR"},"patient":{"reference":"\(aliceURL)"},"occurrenceDateTime":"2016-03-04"}},
        {"fullUrl":"urn:uuid:obs-b1","resource":{"resourceType":"Observation","id":"obs-b1","status":"final","category":[{"coding":[{"code":"vital-signs"}]}],"code":{"text":"Pulse"},"subject":{"reference":"\(bobURL)"}}},
        {"fullUrl":"urn:uuid:enc-b1","resource":{"resourceType":"Encounter","id":"enc-b1","status":"finished","subject":{"reference":"Patient/bob"}}},
        {"fullUrl":"urn:uuid:org-1","resource":{"resourceType":"Organization","id":"org-1","name":"Clinic"}}
        ]}
        """
}
