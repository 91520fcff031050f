import HealthRecord
import Records
import TestSupport
import Testing

/// The tests' record builder (`TestSupport/RecordBuilder.swift`): its RHEx JSON is the record it was built
/// from, so that a test that imports the text means the record it wrote.
@Suite("the tests' record builder")
struct RecordBuilderTests {
    @Test("a built record's RHEx JSON reads back as the same patient and entries, with the parser's ids")
    func jsonReadsBack() throws {
        let built = PatientRecord.record("rt-1", name: "Ada Lovelace", gender: "F", birthdate: -4_861_684_800, entries: [
            .entry(.condition, "Asthma", start: 1_000_000, end: 2_000_000, status: "active", codes: ["SNOMED-CT": ["195967001"]],
                   sourceID: "c1"),
            .entry(.result, "Potassium", at: 1_293_900_000, value: 4.1, units: "mmol/L", codes: ["LOINC": ["2823-3"]], sourceID: "r1"),
            .entry(.result, "HIV", at: 1_293_900_001, text: "Positive", sourceID: "r2"),
            .entry(.vitalSign, "Body Weight", at: 1_293_900_002, value: 70, units: "kg", sourceID: "v1"),
        ])
        let parsed = try parseRecord(built.rhexJSON())
        #expect(parsed.recordID == "rt-1" && parsed.name == "Ada Lovelace" && parsed.firstName == "Ada" && parsed.lastName == "Lovelace")
        #expect(parsed.gender == "F" && parsed.birthdate == -4_861_684_800)
        // Everything but the id (the parser's, from the section and the `_id`) and the source JSON (the text read);
        // the entries are in sections, so the built ones are listed section by section here.
        var expected = built.entries
        for index in expected.indices where index < parsed.entries.count {
            expected[index].id = parsed.entries[index].id
            expected[index].rawJSON = parsed.entries[index].rawJSON
        }
        #expect(parsed.entries == expected)
    }

    @Test("an entry without an id gets one from what it holds: the same entry the same id, another entry another")
    func derivedIDs() {
        let potassium = Entry.entry(.result, "Potassium", at: 1_000, value: 4.1)
        #expect(potassium.id == Entry.entry(.result, "Potassium", at: 1_000, value: 4.1).id)
        #expect(potassium.id != Entry.entry(.result, "Potassium", at: 1_000, value: 4.2).id)
        #expect(potassium.id != Entry.entry(.vitalSign, "Potassium", at: 1_000, value: 4.1).id)
        #expect(Entry.entry(.result, "Potassium", id: "e_1").id == "e_1")
    }
}
