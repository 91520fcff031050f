import Records
import HealthRecord
import Testing

/// The shapes a person meets, made in the test: bundles of each type, NDJSON, a single resource, a
/// folder of one-resource files, references of every form, dates of every precision.
@Suite("FHIR shapes")
struct FHIRShapeTests {
    static let patient = #"{"resourceType":"Patient","id":"p1","identifier":[{"system":"urn:mrn","value":"42"}],"name":[{"given":["Ada"],"family":"Lovelace"}],"gender":"female","birthDate":"1815-12-10"}"#

    static func condition(_ id: String, subject: String = "Patient/p1", onset: String = "2012-04") -> String {
        #"{"resourceType":"Condition","id":"\#(id)","subject":{"reference":"\#(subject)"},"code":{"coding":[{"system":"http://snomed.info/sct","code":"38341003","display":"Hypertension"}]},"clinicalStatus":{"coding":[{"code":"active"}]},"onsetDateTime":"\#(onset)"}"#
    }

    static func read(_ text: String, name: String = "input.json") throws -> FHIRReader.Result {
        try FHIRReader().read(Array(text.utf8), name: name)
    }

    @Test("a bundle of each type is read the same", arguments: ["collection", "searchset", "transaction", "batch", "batch-response", "document"])
    func bundleTypes(type: String) throws {
        let text = #"{"resourceType":"Bundle","type":"\#(type)","entry":[{"fullUrl":"urn:uuid:a","resource":\#(Self.patient)},{"resource":\#(Self.condition("c1"))},{"response":{"status":"201"}}]}"#
        let result = try Self.read(text)
        #expect(result.files[0].shape == .bundle)
        #expect(result.patients.count == 1)
        let record = try #require(result.patients[0].record)
        #expect(record.name == "Ada Lovelace")
        #expect(record.gender == "F")
        #expect(record.identifiers == [PatientIdentifier(system: "urn:mrn", value: "42")])
        #expect(record.entries.count == 1)
        #expect(record.entries[0].codes == ["SNOMED-CT": ["38341003"]])
        #expect(record.entries[0].status == "active")
    }

    @Test("urn:uuid references resolve through fullUrl")
    func urnReferences() throws {
        let patient = Self.patient.replacingOccurrences(of: #""id":"p1","#, with: "")
        let text = #"{"resourceType":"Bundle","type":"transaction","entry":[{"fullUrl":"urn:uuid:abc","resource":\#(patient)},{"fullUrl":"urn:uuid:def","resource":\#(Self.condition("c1", subject: "urn:uuid:abc"))}]}"#
        let result = try Self.read(text)
        #expect(result.patients.count == 1)
        #expect(result.patients[0].hasPatientResource)
        #expect(result.patients[0].record?.entries.count == 1)
    }

    @Test("NDJSON: one resource a line, blank lines ignored, a bad line reported and the rest read")
    func ndjson() throws {
        let text = Self.patient + "\n\n" + Self.condition("c1") + "\n{broken\n" + Self.condition("c2") + "\n"
        let result = try Self.read(text, name: "x.ndjson")
        #expect(result.files[0].shape == .ndjson)
        #expect(result.patients[0].record?.entries.count == 2)
        #expect(result.problems.count == 1)
        #expect(result.problems[0].hasPrefix("x.ndjson:4:"))
    }

    @Test("a single resource; a folder of one-resource files without the Patient (Apple Health)")
    func singleResourcesAndFolder() throws {
        let single = try Self.read(Self.condition("c1", subject: "Patient/apple"))
        #expect(single.files[0].shape == .resource)
        #expect(single.patients.count == 1)
        #expect(!single.patients[0].hasPatientResource)
        #expect(single.patients[0].warnings.count == 1)
        let files = try ["a.json", "b.json"].enumerated().map { index, name in
            try FHIRInput.read(Array(Self.condition("c\(index)", subject: "Patient/apple").utf8), name: name)
        }
        let folder = FHIRReader().assemble(files)
        #expect(folder.patients.count == 1)
        #expect(folder.patients[0].record?.entries.count == 2)
        #expect(folder.patients[0].record?.recordID == "fhir:Patient/apple")
    }

    @Test("absolute and versioned references, and a Medication contained in the resource")
    func referenceForms() throws {
        let request = ##"{"resourceType":"MedicationRequest","id":"m1","subject":{"reference":"https://ehr.example/fhir/Patient/p1/_history/3"},"contained":[{"resourceType":"Medication","id":"med","code":{"text":"Lisinopril 10 mg"}}],"medicationReference":{"reference":"#med"},"authoredOn":"2020-01-02T08:00:00+02:00","status":"active"}"##
        let text = #"{"resourceType":"Bundle","type":"collection","entry":[{"resource":\#(Self.patient)},{"resource":\#(request)}]}"#
        let result = try Self.read(text)
        #expect(result.patients.count == 1)
        let entry = try #require(result.patients[0].record?.entries.first)
        #expect(entry.description == "Lisinopril 10 mg")
        #expect(entry.startTime == 1_577_944_800) // 2020-01-02T06:00:00Z
        #expect(entry.type == .medication)
    }

    @Test("dates: year, month, day, seconds with offsets and fractions; bad ones refused")
    func dates() throws {
        #expect(FHIRDate.parse("2012")?.seconds == 1_325_419_200)          // 2012-01-01T12:00Z
        #expect(FHIRDate.parse("2012-04")?.seconds == 1_333_281_600)       // 2012-04-01T12:00Z
        #expect(FHIRDate.parse("2012-04-15")?.seconds == 1_334_491_200)    // 2012-04-15T12:00Z
        #expect(FHIRDate.parse("2012-04-15T10:30:00-05:00")?.seconds == 1_334_503_800)
        #expect(FHIRDate.parse("2012-04-15T15:30:00.123Z")?.seconds == 1_334_503_800)
        #expect(FHIRDate.parse("1815-12-10")?.seconds == -4_861_684_800)
        #expect(FHIRDate.parse("2012-04")?.precision == .month)
        for bad in ["", "12", "2012-13", "2012-02-30", "2012-04-15T25:00:00Z", "2012-04-15T10:30", "2012/04/15", "2012-04-15Z"] {
            #expect(FHIRDate.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("entered in error is left out; a blood-pressure panel becomes two readings")
    func enteredInErrorAndComponents() throws {
        let wrong = #"{"resourceType":"Condition","id":"c9","subject":{"reference":"Patient/p1"},"verificationStatus":{"coding":[{"code":"entered-in-error"}]},"code":{"text":"Not mine"}}"#
        let bp = #"{"resourceType":"Observation","id":"bp","status":"final","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"vital-signs"}]}],"code":{"coding":[{"system":"http://loinc.org","code":"85354-9"}]},"subject":{"reference":"Patient/p1"},"effectiveDateTime":"2020-05-01T09:00:00Z","component":[{"code":{"coding":[{"system":"http://loinc.org","code":"8480-6","display":"Systolic Blood Pressure"}]},"valueQuantity":{"value":121,"unit":"mm[Hg]"}},{"code":{"coding":[{"system":"http://loinc.org","code":"8462-4","display":"Diastolic Blood Pressure"}]},"valueQuantity":{"value":79,"unit":"mm[Hg]"}}]}"#
        let text = #"{"resourceType":"Bundle","type":"collection","entry":[{"resource":\#(Self.patient)},{"resource":\#(wrong)},{"resource":\#(bp)}]}"#
        let result = try Self.read(text)
        let patient = result.patients[0]
        #expect(patient.enteredInError == 1)
        let entries = try #require(patient.record?.entries)
        #expect(entries.map(\.description) == ["Systolic Blood Pressure", "Diastolic Blood Pressure"])
        #expect(entries.map(\.value) == [121, 79])
        #expect(entries.allSatisfy { $0.type == .vitalSign && $0.time == 1_588_323_600 })
        #expect(Set(entries.map(\.id)).count == 2)
    }

    @Test("the same resource twice: the later one is imported, and a problem says so")
    func repeated() throws {
        let text = Self.patient + "\n" + Self.condition("c1", onset: "2010") + "\n" + Self.condition("c1", onset: "2011") + "\n"
        let result = try Self.read(text)
        #expect(result.patients[0].record?.entries.count == 1)
        #expect(result.patients[0].record?.entries[0].startTime == FHIRDate.parse("2011")?.seconds)
        #expect(result.problems.count == 1)
    }

    @Test("edge cases a review found: a repeated component code, a Goal in error, an empty period, a subject without a reference")
    func reviewedEdges() throws {
        let panel = #"{"resourceType":"Observation","id":"o","subject":{"reference":"Patient/p1"},"effectiveDateTime":"2020-01-01T00:00:00Z","component":[{"code":{"text":"Reading"},"valueQuantity":{"value":1}},{"code":{"text":"Reading"},"valueQuantity":{"value":2}}]}"#
        let goal = #"{"resourceType":"Goal","id":"g","lifecycleStatus":"entered-in-error","subject":{"reference":"Patient/p1"},"description":{"text":"x"}}"#
        let empty = #"{"resourceType":"Observation","id":"e","subject":{"reference":"Patient/p1"},"effectivePeriod":{},"issued":"2020-02-02T00:00:00Z","valueString":"ok"}"#
        let claim = #"{"resourceType":"Claim","id":"c","subject":{"display":"no reference"},"patient":{"reference":"Patient/p1"}}"#
        let result = try Self.read([Self.patient, panel, goal, empty, claim].joined(separator: "\n"))
        let patient = try #require(result.patients.first)
        #expect(result.patients.count == 1)
        let entries = try #require(patient.record?.entries)
        #expect(entries.filter { $0.sourceID == "Observation/o" }.map(\.value) == [1, 2])
        #expect(Set(entries.map(\.id)).count == entries.count)
        #expect(patient.enteredInError == 1)
        #expect(entries.first { $0.sourceID == "Observation/e" }?.time == FHIRDate.parse("2020-02-02T00:00:00Z")?.seconds)
        #expect(patient.kept == ["Claim": 1])
    }

    @Test("whose a resource is: the first of subject, patient, beneficiary that is a reference, each as given last")
    func patientReferences() throws {
        let second = Self.patient.replacingOccurrences(of: #""id":"p1""#, with: #""id":"p2""#)
        func condition(_ id: String, _ members: String) -> String {
            #"{"resourceType":"Condition","id":"\#(id)",\#(members),"code":{"text":"x"},"onsetDateTime":"2012-04"}"#
        }
        let resources = [
            Self.patient, second,
            // `subject` given twice, the last one not a reference: `patient` is read.
            condition("c1", #""subject":{"reference":"Patient/p1"},"subject":{"reference":5},"patient":{"reference":"Patient/p2"}"#),
            // `subject` is not an object: `beneficiary` is read, whatever the members around it.
            condition("c2", #""subject":"Patient/p2","beneficiary":{"extension":[{"url":"u"}],"reference":"Patient/p1","type":"Patient"}"#),
            // Not in the input: the person is known by the reference, named by its display.
            condition("c3", #""subject":{"display":"Grace Hopper","reference":"Patient/gh-00000000000000000000"}"#),
            // Both are references: `subject` is read first, wherever it comes.
            condition("c5", #""patient":{"reference":"Patient/p2"},"subject":{"reference":"Patient/p1"}"#),
            // No reference at all: with several people in the input, nobody's.
            condition("c4", #""subject":{"display":"only a name"}"#),
        ]
        let result = try Self.read(resources.joined(separator: "\n"), name: "input.ndjson")
        func sources(_ reference: String) -> [String]? {
            result.patients.first { $0.reference == reference }?.record?.entries.compactMap(\.sourceID)
        }
        #expect(result.patients.count == 3)
        #expect(sources("Patient/p1") == ["Condition/c2", "Condition/c5"])
        #expect(sources("Patient/p2") == ["Condition/c1"])
        #expect(sources("Patient/gh-00000000000000000000") == ["Condition/c3"])
        #expect(result.patients.first { $0.reference == "Patient/gh-00000000000000000000" }?.record?.name == "Grace Hopper")
        #expect(result.unowned == ["Condition": 1])
    }

    @Test("a bundle entry's fullUrl names a resource without an id, whether it comes before the resource or after")
    func fullUrlEitherSide() throws {
        let condition = #"{"resourceType":"Condition","subject":{"reference":"Patient/p1"},"code":{"text":"x"}}"#
        let text = #"{"resourceType":"Bundle","type":"collection","entry":[{"fullUrl":"urn:uuid:before","resource":\#(condition)},{"resource":\#(condition),"fullUrl":"urn:uuid:after"},{"fullUrl":"urn:uuid:first","resource":\#(condition),"fullUrl":"urn:uuid:last"}]}"#
        let file = try FHIRInput.read(Array(text.utf8), name: "bundle.json")
        #expect(file.resources.map(\.key) == ["Condition/urn:uuid:before", "Condition/urn:uuid:after", "Condition/urn:uuid:last"])
        #expect(file.resources.map(\.fullUrl) == ["urn:uuid:before", "urn:uuid:after", "urn:uuid:last"])
    }

    @Test("the record's identity is the identifier typed MR, with its own system")
    func medicalRecordIdentity() throws {
        let patient = #"{"resourceType":"Patient","id":"p","identifier":[{"system":"https://github.com/synthetichealth/synthea","value":"abc"},{"type":{"coding":[{"code":"MR"}]},"system":"http://hospital.smarthealthit.org","value":"abc"}]}"#
        let record = try #require(try Self.read(patient).patients.first?.record)
        #expect(record.recordID == "fhir:http://hospital.smarthealthit.org|abc")
        #expect(record.medicalRecordNumber == "abc")
    }

    @Test("a resource without id or fullUrl keeps its entry id whatever the file's name or its place")
    func idlessResources() throws {
        let condition = #"{"resourceType":"Condition","subject":{"reference":"Patient/p1"},"code":{"text":"Asthma"},"onsetDateTime":"2001"}"#
        let a = try Self.read(Self.patient + "\n" + condition, name: "a.ndjson")
        let b = try Self.read(Self.patient + "\n\n\n" + condition, name: "elsewhere/b.ndjson")
        #expect(a.patients[0].record?.entries.map(\.id) == b.patients[0].record?.entries.map(\.id))
    }

    /// `text` with whitespace between its tokens: a space after each `:` and `,` outside strings, a newline and
    /// a tab before each `{`, as a pretty-printer writes (strings, spaces in them included, as they were).
    static func spaced(_ text: String) -> String {
        var out = ""
        var inString = false, escaped = false
        for character in text {
            if inString {
                out.append(character)
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                continue
            }
            switch character {
            case "\"": inString = true; out.append(character)
            case ":", ",": out.append(character); out.append(" ")
            case "{": out.append("\n\t{")
            default: out.append(character)
            }
        }
        return out
    }

    @Test("an entry keeps its resource's compact JSON whether the file was compact, pretty-printed, or both in turn")
    func rawJSONWhateverTheSpacing() throws {
        let spacedInStrings = Self.condition("c1").replacingOccurrences(of: "Hypertension", with: #"High  blood pressure, \"both\": { arms }"#)
        let idless = #"{"resourceType":"Condition","subject":{"reference":"Patient/p1"},"code":{"text":"Asthma"},"onsetDateTime":"2001"}"#
        let resources = [Self.patient, spacedInStrings, idless]
        func bundle(_ texts: [String]) -> String {
            #"{"resourceType":"Bundle","type":"collection","entry":["# + texts.map { #"{"resource":"# + $0 + "}" }.joined(separator: ",") + "]}"
        }
        let compact = try Self.read(bundle(resources))
        let entries = try #require(compact.patients.first?.record?.entries)
        #expect(entries.count == 2)
        // As the source wrote them, byte for byte, strings' own spaces kept.
        #expect(Set(entries.map(\.rawJSON)) == Set(resources.dropFirst()))
        for variant in [resources.map(Self.spaced), [resources[0], Self.spaced(resources[1]), resources[2]],
                        [resources[0], resources[1], Self.spaced(resources[2])]] {
            #expect(variant != resources)
            let read = try Self.read(bundle(variant))
            let again = try #require(read.patients.first?.record?.entries)
            #expect(again.map(\.rawJSON) == entries.map(\.rawJSON))
            #expect(again.map(\.id) == entries.map(\.id))
            // A line each, its newlines spaces instead.
            let lines = try Self.read(variant.map { "  " + $0.replacingOccurrences(of: "\n", with: " ") + " \t" }.joined(separator: "\n"),
                                      name: "x.ndjson")
            #expect(lines.patients.first?.record?.entries.map(\.rawJSON) == entries.map(\.rawJSON))
        }
    }

    @Test("an IPS placeholder (coded only as absent or unknown) is kept, not shown; coded in another system too, it is an entry")
    func absentUnknownPlaceholders() throws {
        let ips = "http://hl7.org/fhir/uv/ips/CodeSystem/absent-unknown-uv-ips"
        let allergy = #"{"resourceType":"AllergyIntolerance","id":"a1","patient":{"reference":"Patient/p1"},"code":{"coding":[{"system":"\#(ips)","code":"no-allergy-info"}]}}"#
        let medication = #"{"resourceType":"MedicationStatement","id":"m1","subject":{"reference":"Patient/p1"},"status":"active","medicationCodeableConcept":{"coding":[{"system":"\#(ips)","code":"no-medication-info"},{"system":"\#(ips)","code":"no-known-medications"}]}}"#
        // A lone coding where the concept belongs.
        let lone = #"{"resourceType":"Condition","id":"c9","subject":{"reference":"Patient/p1"},"code":{"system":"\#(ips)","code":"no-problem-info"}}"#
        let mixed = #"{"resourceType":"Condition","id":"c8","subject":{"reference":"Patient/p1"},"code":{"coding":[{"system":"\#(ips)","code":"no-problem-info"},{"system":"http://snomed.info/sct","code":"38341003"}]}}"#
        let result = try Self.read([Self.patient, allergy, medication, lone, mixed, Self.condition("c1")].joined(separator: "\n"), name: "x.ndjson")
        let entries = try #require(result.patients.first?.record?.entries)
        #expect(entries.count == 2)
        #expect(entries.allSatisfy { $0.type.rawValue == "condition" })
        #expect(Set(entries.compactMap { $0.codes["SNOMED-CT"]?.first }) == ["38341003"])
    }
}
