import Foundation
import Records
import HealthRecord
import TestSupport
import Testing

/// The real third-party records, parsed, against numbers read off the files by eye (and with `jq`),
/// never computed with the parser itself.
@Suite("sample records", .enabled(if: Samples.available, Samples.missingReason))
struct SampleRecordTests {
    @Test("every sample JSON record parses, with unique entry ids that a re-parse reproduces", arguments: Samples.recordFiles)
    func parsesWithStableUniqueIDs(file: String) throws {
        let bytes = try Samples.bytes(file)
        let first = try RecordParser().parse(bytes)
        let second = try RecordParser().parse(bytes)
        let ids = first.entries.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(ids == second.entries.map(\.id))
        #expect(first == second)
    }

    @Test("Henry Smith (Gen 1, hReader): demographics")
    func henryDemographics() throws {
        let record = try Samples.record("hreader_hs_henry_smith.json")
        #expect(record.recordID == "4f4e9fcbb615219f0a000001")
        #expect(record.medicalRecordNumber == "1")
        #expect(record.firstName == "Henry")
        #expect(record.lastName == "Smith")
        #expect(record.name == "Henry Smith")
        #expect(record.gender == "M")
        #expect(record.birthdate == -972586800)
    }

    @Test("Henry Smith: entries per section")
    func henryCounts() throws {
        let record = try Samples.record("hreader_hs_henry_smith.json")
        #expect(record.countsBySection == [
            "allergies": 1, "conditions": 4, "encounters": 6, "immunizations": 2,
            "medications": 4, "procedures": 10, "results": 50, "vital_signs": 61,
        ])
    }

    @Test("Henry Smith: a string scalar \"118.0\" is the number 118 with its units")
    func henryVitalSign() throws {
        let record = try Samples.record("hreader_hs_henry_smith.json")
        let systolic = try #require(record.entry(.vitalSign, sourceID: "4f4e9fcbb615219f0a00003d"))
        #expect(systolic.description == "Systolic Blood Pressure")
        #expect(systolic.value == 118)
        #expect(systolic.textValue == nil)
        #expect(systolic.units == "mm[Hg]")
        #expect(systolic.status == "completed")
        #expect(systolic.time == 1291266000)
        #expect(systolic.date == 1291266000)
        #expect(systolic.codes == ["SNOMED-CT": ["271649006"]])
    }

    @Test("Henry Smith: a result's value, and an empty scalar that is no value rather than 0")
    func henryResults() throws {
        let record = try Samples.record("hreader_hs_henry_smith.json")
        let psa = try #require(record.entry(.result, sourceID: "4f4e9fcbb615219f0a000010"))
        #expect(psa.description == "Prostate Specific Antigen Test")
        #expect(psa.value == 6.3)
        #expect(psa.units == nil)
        #expect(psa.codes == ["CPT": ["84153"], "LOINC": ["19195-7"], "SNOMED-CT": ["63476009"]])
        let edema = try #require(record.entry(.result, sourceID: "4f4e9fccb615219f0a00003f"))
        #expect(edema.description == "Bilateral 3+ pitting edema")
        #expect(edema.value == nil)
        #expect(edema.textValue == nil)
    }

    @Test("Henry Smith: a condition with only a start time and no status")
    func henryCondition() throws {
        let record = try Samples.record("hreader_hs_henry_smith.json")
        let hypertension = try #require(record.entry(.condition, sourceID: "4f4e9fccb615219f0a000073"))
        #expect(hypertension.description == "Hypertension")
        #expect(hypertension.time == nil)
        #expect(hypertension.startTime == 1251172800)
        #expect(hypertension.date == 1251172800)
        #expect(hypertension.status == nil)
        #expect(hypertension.codes == ["ICD-10-CM": ["I10"], "ICD-9-CM": ["401.9"], "SNOMED-CT": ["59621000"]])
    }

    @Test("Henry Smith: a repeated _id gives each occurrence its own id, and the raw JSON keeps both")
    func henryDuplicates() throws {
        let record = try Samples.record("hreader_hs_henry_smith.json")
        // The procedure 4f4e9fcbb615219f0a000010 appears twice, byte for byte.
        let stress = record.entries(.procedure).filter { $0.sourceID == "4f4e9fcbb615219f0a000010" }
        #expect(stress.count == 2)
        #expect(stress[0].id != stress[1].id)
        #expect(stress[0].rawJSON == stress[1].rawJSON)
        #expect(stress[0].id == StableID.make("e", ["procedures", "4f4e9fcbb615219f0a000010"]))
        #expect(stress[1].id == StableID.make("e", ["procedures", "4f4e9fcbb615219f0a000010", "#2"]))
        // The same _id in another section is another entry with another id.
        let psa = try #require(record.entry(.result, sourceID: "4f4e9fcbb615219f0a000010"))
        #expect(psa.id == StableID.make("e", ["results", "4f4e9fcbb615219f0a000010"]))
        // Five vital-sign _ids appear twice with different readings (Oxygen Saturation, Respiration).
        let repeated = record.entries(.vitalSign).filter { $0.sourceID == "4f4e9fcbb615219f0a000070" }
        #expect(repeated.map(\.description) == ["Oxygen Saturation", "Respiration"])
        #expect(repeated.map(\.value) == [92.1, 17])
        #expect(repeated.map(\.units) == ["%", "breaths/min"])
    }

    @Test("Henry Smith: raw JSON is the source entry, compact, members in source order")
    func henryRawJSON() throws {
        let record = try Samples.record("hreader_hs_henry_smith.json")
        let allergy = try #require(record.entries(.allergy).first)
        #expect(allergy.rawJSON == #"{"_id":"4f4e9fccb615219f0a000078","_type":"Allergy","codes":{},"reaction":null,"severity":null,"start_time":null,"time":null,"value":{},"version":1}"#)
        #expect(allergy.codes == [:])
        #expect(allergy.date == nil)
        #expect(allergy.description == nil)
    }

    @Test("Henry Smith: every non-section member is kept in otherFieldsJSON, sections are not")
    func henryOtherFields() throws {
        let record = try Samples.record("hreader_hs_henry_smith.json")
        let other = try #require(try JSONSerialization.jsonObject(with: Data(record.otherFieldsJSON.utf8)) as? [String: Any])
        #expect(Set(other.keys) == [
            "_id", "birthdate", "care_goals", "created_at", "deathdate", "effective_time", "ethnicity",
            "first", "gender", "languages", "last", "medical_record_number", "race", "social_history",
            "test_id", "updated_at", "version",
        ])
        #expect(record.otherFieldsJSON.contains(#""race":{"code":"","code_set":"CDC-RE"}"#))
        #expect(record.otherFieldsJSON.hasPrefix(#"{"_id":"4f4e9fcbb615219f0a000001","birthdate":-972586800,"care_goals":[{"#))
    }

    @Test("Nancy Smith (Gen 1, other exporter): demographics, null race and ethnicity kept raw")
    func nancyDemographics() throws {
        let record = try Samples.record("hreader_ns_nancy_smith.json")
        #expect(record.recordID == "4fa1a927dfef6146b5000001")
        #expect(record.medicalRecordNumber == "1")
        #expect(record.name == "Nancy Smith")
        #expect(record.gender == "F")
        #expect(record.birthdate == -1636156800)
        #expect(record.otherFieldsJSON.contains(#""race":null"#))
        #expect(record.otherFieldsJSON.contains(#""ethnicity":null"#))
        #expect(record.otherFieldsJSON.contains(#""languages":null"#))
    }

    @Test("Nancy Smith: entries per section, no encounters or immunizations")
    func nancyCounts() throws {
        let record = try Samples.record("hreader_ns_nancy_smith.json")
        #expect(record.countsBySection == [
            "allergies": 30, "conditions": 28, "medications": 18, "procedures": 12,
            "results": 10, "vital_signs": 61,
        ])
    }

    @Test("Nancy Smith: start and end times, null times, null status, the Unknown code system")
    func nancySpotValues() throws {
        let record = try Samples.record("hreader_ns_nancy_smith.json")
        let soreThroat = try #require(record.entries(.condition).first { $0.description == "sore throat" })
        #expect(soreThroat.time == nil)
        #expect(soreThroat.startTime == 1068249600)
        #expect(soreThroat.endTime == 1068681600)
        #expect(soreThroat.status == nil)
        let tia = try #require(record.entry(.condition, sourceID: "4fa1a927dfef6146b500002f"))
        #expect(tia.description == "Transient ischemic attack")
        #expect(tia.codes == ["SNOMED-CT": ["266257000"], "Unknown": ["428"]])
        #expect(tia.date == nil)
        let lopressor = try #require(record.entry(.medication, sourceID: "4fa1a927dfef6146b500001b"))
        #expect(lopressor.startTime == 1087862400)
        #expect(lopressor.endTime == 1106006400)
        let systolic = try #require(record.entry(.vitalSign, sourceID: "4f4e9fcdb615219f0a0000ef"))
        #expect(systolic.value == 125)
        #expect(systolic.units == "mm[Hg]")
        let refused = try #require(record.entry(.result, sourceID: "4fa1a927dfef6146b5000011"))
        #expect(refused.description == "REFUSED")
        #expect(refused.status == "completed")
        #expect(refused.value == nil)
        #expect(refused.time == 1024385940)
        // Allergies whose description is null stay without one.
        let allergy = try #require(record.entry(.allergy, sourceID: "4fa1a928dfef6146b500004b"))
        #expect(allergy.description == nil)
        #expect(allergy.startTime == 1256218090)
        #expect(allergy.codes == ["Unknown": ["000476"]])
    }

    @Test("Rosa Vasquez (Gen 2): values arrays with numeric, boolean-like and text scalars")
    func rosa() throws {
        let record = try Samples.record("hds_v2.1.1_rosa.json")
        #expect(record.recordID == "4dcbecdb431a5f5878000004")
        #expect(record.medicalRecordNumber == nil)
        #expect(record.name == "Rosa Vasquez")
        #expect(record.gender == "F")
        #expect(record.birthdate == 345426614)
        #expect(record.countsBySection == [
            "encounters": 4, "conditions": 6, "vital_signs": 3, "procedures": 2,
            "results": 4, "medications": 1, "immunizations": 1, "allergies": 1,
        ])
        let bmi = record.entries(.vitalSign)
        #expect(bmi.map(\.description) == ["BMI", "BMI", "BMI"])
        #expect(bmi.map(\.value) == [26, nil, nil])
        #expect(bmi.map(\.textValue) == [nil, "true", "testing"])
        #expect(bmi.map(\.units) == [nil, nil, nil])
        // No entry has an _id: all ids are hashes, and the three BMI readings at one time differ
        // only in value, so they are told apart by occurrence.
        #expect(record.entries.allSatisfy { $0.sourceID == nil })
        #expect(Set(bmi.map(\.id)).count == 3)
        #expect(record.otherFieldsJSON.contains(#""race":{"code":"2110-5"}"#))
        #expect(record.otherFieldsJSON.contains(#""medical_equipment":[{"codes":{"SNOMED-CT":["56961003"]},"time":1279252800,"description":"Cardiac Pacer"}]"#))
    }

    @Test("Barry Berry (late HDS): numeric MRN, name from first and last, coded statuses")
    func barry() throws {
        let record = try Samples.record("hds_v4_barry_berry.json")
        #expect(record.recordID == "506afdf87042f9e32c000001")
        #expect(record.medicalRecordNumber == "56789")
        #expect(record.name == "Barry Berry")
        #expect(record.gender == "M")
        #expect(record.birthdate == -223262033)
        // `expired: true` with a `deathdate`: he died in 2005.
        #expect(record.deceased == true && record.deceasedDate == 1125956803)
        #expect(record.countsBySection == [
            "encounters": 2, "conditions": 2, "vital_signs": 2, "procedures": 1,
            "results": 1, "immunizations": 3, "medications": 1, "allergies": 1,
        ])
        let systolic = try #require(record.entries(.vitalSign).first { $0.description == "Systolic BP" })
        #expect(systolic.value == 132)
        #expect(systolic.units == "mm[Hg]")
        #expect(systolic.status == "completed") // status_code {"HL7 ActStatus": ["completed"]}
        let cancer = try #require(record.entries(.condition).first { $0.description == "Colorectal Cancer" })
        #expect(cancer.status == "active") // problemStatus SNOMED-CT 55561003
        let vitamins = try #require(record.entries(.medication).first)
        #expect(vitamins.status == "active") // statusOfMedication SNOMED-CT 55561003
        #expect(vitamins.codes == ["RxNorm": ["89905"]])
        let peanuts = try #require(record.entries(.allergy).first)
        #expect(peanuts.time == 1269762692)
        #expect(peanuts.startTime == 1269762691)
        #expect(peanuts.endTime == 1269762693)
        let outpatient = try #require(record.entry(.encounter, sourceID: "OP12345"))
        #expect(outpatient.id == StableID.make("e", ["encounters", "OP12345"]))
        #expect(outpatient.time == 1268042997)
        // Extra sections are not entries but stay in otherFieldsJSON.
        for section in ["pregnancies", "socialhistories", "functional_statuses", "insurance_providers", "medical_equipment"] {
            #expect(record.otherFieldsJSON.contains("\"\(section)\":["))
        }
        #expect(record.otherFieldsJSON.contains(#""medical_record_number":56789"#))
    }

    @Test("the 500-patient RHEx server fixture: every line is a record with an $oid id")
    func fixture500() throws {
        let lines = try Samples.fixtureLines()
        #expect(lines.count == 500)
        var totals: [String: Int] = [:]
        var recordIDs = Set<String>()
        for line in lines {
            let record = try RecordParser().parse(line)
            recordIDs.insert(record.recordID)
            for (section, count) in record.countsBySection { totals[section, default: 0] += count }
            let ids = record.entries.map(\.id)
            #expect(Set(ids).count == ids.count)
        }
        #expect(recordIDs.count == 500)
        #expect(totals == [
            "encounters": 1111, "conditions": 802, "medications": 1314, "procedures": 1119,
            "results": 646, "vital_signs": 809,
        ])
        let first = try RecordParser().parse(lines[0])
        #expect(first.recordID == "4e57b6c04f85cffb1d000001")
        #expect(first.medicalRecordNumber == "1")
        #expect(first.name == "Rhonda Sparks")
        #expect(first.gender == "F")
        #expect(first.birthdate == -790874989)
        let systolic = try #require(first.entries(.vitalSign).first)
        #expect(systolic.description == "Systolic")
        #expect(systolic.value == 146)
        #expect(systolic.units == "mmHg")
        #expect(systolic.codes == ["SNOMED-CT": ["12929001"]])
        #expect(systolic.rawJSON == #"{"codes":{"SNOMED-CT":["12929001"]},"value":{"scalar":146,"units":"mmHg"},"time":1287994563,"description":"Systolic"}"#)
        #expect(first.otherFieldsJSON.hasPrefix(#"{"_id":{"$oid":"4e57b6c04f85cffb1d000001"},"first":"Rhonda","medical_record_number":"1","patient_id":"5838337972""#))
        let last = try RecordParser().parse(lines[499])
        #expect(last.recordID == "4e57b6c24f85cffb1d0001f4")
        #expect(last.name == "Charlotte Kelley")
        #expect(last.medicalRecordNumber == "500")
        #expect(last.birthdate == -1159498403)
    }
}
