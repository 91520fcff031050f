import Foundation
import Records
import HealthRecord
import TestSupport
import Testing

/// How each generation's ways of writing values, statuses, codes, times and identities come out.
@Suite("normalisation")
struct NormalisationTests {
    @Test("value and values scalars: numbers, numeric text, other text, empty", arguments: [
        (#"{"value":{"scalar":"118.0","units":"mm[Hg]"}}"#, 118, nil, "mm[Hg]"),
        (#"{"value":{"scalar":118,"units":"mm[Hg]"}}"#, 118, nil, "mm[Hg]"),
        (#"{"value":{"scalar":-0.5,"units":"Cel"}}"#, -0.5, nil, "Cel"),
        (#"{"value":{"scalar":"Positive","units":null}}"#, nil, "Positive", nil),
        (#"{"value":{"scalar":"","units":"mg/dL"}}"#, nil, nil, "mg/dL"),
        (#"{"value":{"scalar":"   "}}"#, nil, nil, nil),
        (#"{"value":{}}"#, nil, nil, nil),
        (#"{"value":null}"#, nil, nil, nil),
        (#"{"value":{"scalar":" 6.3 "}}"#, 6.3, nil, nil),
        (#"{"value":{"scalar":"1e3"}}"#, 1000, nil, nil),
        (#"{"value":{"scalar":".5"}}"#, 0.5, nil, nil),
        (#"{"value":{"scalar":"1,234"}}"#, nil, "1,234", nil),
        (#"{"value":{"scalar":"NaN"}}"#, nil, "NaN", nil),
        (#"{"value":{"scalar":"inf"}}"#, nil, "inf", nil),
        (#"{"value":{"scalar":"0x10"}}"#, nil, "0x10", nil),
        (#"{"value":{"scalar":true}}"#, nil, "true", nil),
        (#"{"value":"7.5"}"#, 7.5, nil, nil),
        (#"{"value":{"value":2,"unit":"tablet"}}"#, 2, nil, "tablet"),
        (#"{"values":[{"scalar":26,"units":null}]}"#, 26, nil, nil),
        (#"{"values":[{"scalar":"true","units":null}]}"#, nil, "true", nil),
        (#"{"values":[{"scalar":132,"units":"mm[Hg]"},{"scalar":80,"units":"mm[Hg]"}]}"#, 132, nil, "mm[Hg]"),
        (#"{"values":[]}"#, nil, nil, nil),
        (#"{"values":[{"codes":{"SNOMED-CT":["260385009"]},"description":"Negative"}]}"#, nil, "Negative", nil),
        (#"{"value":{},"values":[{"scalar":5,"units":"%"}]}"#, 5, nil, "%"),
    ] as [(String, Double?, String?, String?)])
    func measurement(json: String, value: Double?, text: String?, units: String?) throws {
        let entry = try parseEntry(json)
        #expect(entry.value == value)
        #expect(entry.textValue == text)
        #expect(entry.units == units)
    }

    @Test("numbers keep full precision: 0.1, 17 significant digits, huge and tiny exponents", arguments: [
        ("0.1", 0.1), ("6.3", 6.3), ("92.1", 92.1), ("1.7976931348623157e308", 1.7976931348623157e308),
        ("123456789012345678901234567890", 123456789012345678901234567890.0), ("4.9e-324", Double.leastNonzeroMagnitude),
        ("0.30000000000000004", 0.30000000000000004), ("-0.0", -0.0), ("2.5E+3", 2500),
        ("22.466216216216218", 22.466216216216218), ("23.10810810810811", 23.10810810810811),
    ] as [(String, Double)])
    func numberPrecision(literal: String, expected: Double) throws {
        #expect(try parseEntry(#"{"value":{"scalar":\#(literal)}}"#).value == expected)
        #expect(try parseEntry(#"{"value":{"scalar":"\#(literal)"}}"#).value == expected)
    }

    @Test("status: the word, status_code maps, SNOMED-CT concepts, HDS coded statuses", arguments: [
        (#"{"status":"completed"}"#, "completed"),
        (#"{"status":"Completed "}"#, "completed"),
        (#"{"status":"ACTIVE"}"#, "active"),
        (#"{"status":""}"#, nil),
        (#"{"status":null}"#, nil),
        (#"{"status_code":{"HL7 ActStatus":["completed"]}}"#, "completed"),
        (#"{"status_code":{"HL7 ActStatus":["Aborted"]}}"#, "aborted"),
        (#"{"status_code":{"SNOMED-CT":["55561003"]}}"#, "active"),
        (#"{"status_code":{"SNOMED-CT":["73425007"]}}"#, "inactive"),
        (#"{"status_code":{"SNOMED-CT":["413322009"]}}"#, "resolved"),
        (#"{"status_code":{"SNOMED-CT":[413322009]}}"#, "resolved"),
        (#"{"status_code":{"SNOMED-CT":["12345"]}}"#, nil),
        (#"{"status_code":{}}"#, nil),
        (#"{"status":null,"status_code":{"HL7 ActStatus":["cancelled"]}}"#, "cancelled"),
        (#"{"status":"active","status_code":{"SNOMED-CT":["413322009"]}}"#, "active"),
        (#"{"problemStatus":{"code":"413322009","codeSystem":"SNOMED-CT"}}"#, "resolved"),
        (#"{"statusOfMedication":{"code":"55561003","codeSystem":"SNOMED-CT"}}"#, "active"),
        (#"{"statusOfMedication":null}"#, nil),
        ("{}", nil),
    ] as [(String, String?)])
    func status(json: String, expected: String?) throws {
        #expect(try parseEntry(json).status == expected)
    }

    @Test("codes: lists of strings, numbers as their literal text, a bare code, nothing", arguments: [
        (#"{"codes":{"ICD-9-CM":[401.0,"250.00"],"CPT":"99213"}}"#, ["ICD-9-CM": ["401.0", "250.00"], "CPT": ["99213"]]),
        (#"{"codes":{"LOINC":[123]}}"#, ["LOINC": ["123"]]),
        (#"{"codes":{"SNOMED-CT":["42343007"],"SNOMED-CT":["1"]}}"#, ["SNOMED-CT": ["42343007", "1"]]),
        (#"{"codes":{"CPT":[]}}"#, ["CPT": []]),
        (#"{"codes":{"SNOMED-CT":null}}"#, [:]),
        (#"{"codes":{"RxNorm":["314076",null,true]}}"#, ["RxNorm": ["314076"]]),
        (#"{"codes":{}}"#, [:]),
        (#"{"codes":null}"#, [:]),
        (#"{"codes":["42343007"]}"#, [:]),
        ("{}", [:]),
    ] as [(String, [String: [String]])])
    func codes(json: String, expected: [String: [String]]) throws {
        #expect(try parseEntry(json).codes == expected)
    }

    @Test("times: epoch seconds, negative, null, fractional, numeric text, nonsense", arguments: [
        (#"{"time":1291266000}"#, 1291266000),
        (#"{"time":-972586800}"#, -972586800),
        (#"{"time":null}"#, nil),
        (#"{"time":1291266000.9}"#, 1291266000),
        (#"{"time":-1.5}"#, -2),
        (#"{"time":1.2912660e9}"#, 1291266000),
        (#"{"time":"1291266000"}"#, 1291266000),
        (#"{"time":"2010-12-02"}"#, nil),
        (#"{"time":true}"#, nil),
        (#"{"time":1e30}"#, nil),
        (#"{"time":9223372036854775807}"#, Int64.max),
    ] as [(String, Int64?)])
    func time(json: String, expected: Int64?) throws {
        #expect(try parseEntry(json).time == expected)
    }

    @Test("date is the first of time, start and end")
    func date() throws {
        #expect(try parseEntry(#"{"start_time":5,"end_time":9}"#).date == 5)
        #expect(try parseEntry(#"{"time":null,"end_time":9}"#).date == 9)
        #expect(try parseEntry(#"{"time":7,"start_time":5}"#).date == 7)
        #expect(try parseEntry("{}").date == nil)
    }

    @Test("description, else name, else none")
    func description() throws {
        #expect(try parseEntry(#"{"description":"Heart Rate","name":"HR"}"#).description == "Heart Rate")
        #expect(try parseEntry(#"{"description":null,"name":"Sciatica"}"#).description == "Sciatica")
        #expect(try parseEntry(#"{"description":""}"#).description == nil)
        #expect(try parseEntry(#"{"description":{"text":"x"}}"#).description == nil)
    }

    @Test("the entry's raw JSON is its source bytes without the whitespace between tokens")
    func rawJSON() throws {
        let entry = try parseEntry(#"""
        {
            "description" : "Heart  Rate \u00e9 \"q\" ",
            "codes" : { "LOINC" : [ "8867-4" ] },
            "value" : { "scalar" : 7.50e1 , "units" : "/min" },
            "extra" : [ true , false , null ]
        }
        """#)
        #expect(entry.rawJSON == #"{"description":"Heart  Rate \u00e9 \"q\" ","codes":{"LOINC":["8867-4"]},"value":{"scalar":7.50e1,"units":"/min"},"extra":[true,false,null]}"#)
        #expect(entry.description == "Heart  Rate é \"q\" ")
        #expect(entry.value == 75)
    }

    @Test("bytes held by the caller (a Data) parse the same as an array")
    func rawBuffer() throws {
        let json = #"{"_id":"x","results":[{"value":{"scalar":"6.3"}}]}"#
        let fromData = try Data(json.utf8).withUnsafeBytes { try RecordParser().parse($0) }
        #expect(fromData == (try parseRecord(json)))
    }

    @Test("record identity: _id string, $oid, number; MRN string or number; the caller's id wins")
    func recordIdentity() throws {
        #expect(try parseRecord(#"{"_id":{"$oid":"4e57b6c04f85cffb1d000001"}}"#).recordID == "4e57b6c04f85cffb1d000001")
        #expect(try parseRecord(#"{"_id":42}"#).recordID == "42")
        #expect(try parseRecord(#"{"_id":"x","medical_record_number":56789}"#).medicalRecordNumber == "56789")
        #expect(try parseRecord(#"{"_id":"x","medical_record_number":"000123"}"#).medicalRecordNumber == "000123")
        #expect(try parseRecord(#"{"_id":"x"}"#).medicalRecordNumber == nil)
        #expect(try parseRecord(#"{"_id":"x"}"#, recordID: "7").recordID == "7")
    }

    @Test("patient name: first and last, either alone, else name, else empty")
    func names() throws {
        #expect(try parseRecord(#"{"_id":"x","first":"Barry","last":"Berry","name":"Barry B. Berry"}"#).name == "Barry Berry")
        #expect(try parseRecord(#"{"_id":"x","first":"Ann"}"#).name == "Ann")
        #expect(try parseRecord(#"{"_id":"x","last":"Smith","first":null}"#).name == "Smith")
        #expect(try parseRecord(#"{"_id":"x","name":"Barry B. Berry"}"#).name == "Barry B. Berry")
        #expect(try parseRecord(#"{"_id":"x"}"#).name == "")
        let escaped = try parseRecord(#"{"_id":"x","first":"Jos\u00e9","last":"O\"Neil"}"#)
        #expect(escaped.name == "José O\"Neil")
        #expect(escaped.firstName == "José")
    }

    @Test("demographics of odd shapes are left out, but kept raw")
    func oddDemographics() throws {
        let record = try parseRecord(#"{"_id":"x","gender":{"code":"F"},"birthdate":"-1636156800","first":7}"#)
        #expect(record.gender == nil)
        #expect(record.birthdate == -1636156800)
        #expect(record.firstName == nil)
        #expect(record.otherFieldsJSON == #"{"_id":"x","gender":{"code":"F"},"birthdate":"-1636156800","first":7}"#)
    }

    @Test("otherFieldsJSON: every non-section member, compact, in source order")
    func otherFields() throws {
        let record = try parseRecord(#"""
        { "_id" : "x", "race" : { "code" : "2106-3" } , "conditions": [ ],
          "care_goals" : [ { "time" : 1 } ], "languages": null, "results": null }
        """#)
        #expect(record.otherFieldsJSON == #"{"_id":"x","race":{"code":"2106-3"},"care_goals":[{"time":1}],"languages":null}"#)
        #expect(record.entries.isEmpty)
        #expect(try parseRecord(#"{"conditions":[]}"#, recordID: "r").otherFieldsJSON == "{}")
    }

    @Test("a section named twice contributes both lists")
    func repeatedSection() throws {
        let record = try parseRecord(#"{"_id":"x","conditions":[{"_id":"a"}],"conditions":[{"_id":"b"}]}"#)
        #expect(record.entries.map(\.sourceID) == ["a", "b"])
    }

    /// The sections RHEx records show; FHIR's and C-CDA's other types stay raw in an RHEx record.
    static let rhexTypes: [EntryType] = [.allergy, .condition, .encounter, .immunization, .medication, .procedure, .result, .vitalSign]

    @Test("every section becomes entries of its type; unknown sections do not", arguments: rhexTypes)
    func sections(type: EntryType) throws {
        let record = try parseRecord(#"{"_id":"x","\#(type.section)":[{"description":"d"}],"pregnancies":[{"description":"p"}]}"#)
        #expect(record.entries.map(\.type) == [type])
    }

    @Test("social history, care goals and medical equipment stay raw in an RHEx record, as docs/import-mapping.md says",
          arguments: EntryType.allCases.filter { !rhexTypes.contains($0) })
    func rawSections(type: EntryType) throws {
        let record = try parseRecord(#"{"_id":"x","\#(type.section)":[{"description":"d"}]}"#)
        #expect(record.entries.isEmpty)
        #expect(record.otherFieldsJSON.contains(type.section))
    }
}
