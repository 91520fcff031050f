import Records
import HealthRecord
import SyntheticRecords
import Testing

/// The generator's FHIR bundles, read by the FHIR reader: every entry arrives, and the life course is
/// believable (no chronic condition or drug open twice, history up to the end asked for).
@Suite("synthetic FHIR bundles")
struct SyntheticFHIRTests {
    @Test("a family's bundle reads whole: a patient each, every entry, no problems; the same seed gives the same bytes")
    func readsWhole() throws {
        let generator = SyntheticRecords(seed: 11)
        let bytes = generator.fhirBundle(entries: 400)
        #expect(bytes == generator.fhirBundle(entries: 400))
        let result = try FHIRReader().read(bytes, name: "family.json")
        #expect(result.problems.isEmpty)
        #expect(result.patients.count == generator.family().count)
        let expected = SyntheticRecords.sectionCounts(entries: 400)
        for patient in result.patients {
            #expect(patient.error == nil)
            var counts: [EntryType: Int] = [:]
            for entry in patient.record?.entries ?? [] { counts[entry.type, default: 0] += 1 }
            #expect(counts == expected.filter { $0.value > 0 })
        }
        #expect(Set(result.patients.compactMap { $0.record?.name }) == Set(generator.family().map(\.name)))
    }

    @Test("no condition or medication is open twice at once; some resolve or stop; history reaches the end asked for")
    func lifeCourse() throws {
        let end: Int64 = 1_790_000_000
        let result = try FHIRReader().read(SyntheticRecords(seed: 3).fhirBundle(entries: 2_000, end: end), name: "family.json")
        for patient in result.patients {
            let entries = try #require(patient.record?.entries)
            for type in [EntryType.condition, .medication] {
                let open = entries.filter { $0.type == type && $0.canBeOngoing && $0.endTime == nil }
                let names = open.compactMap(\.description)
                #expect(Set(names).count == names.count, "\(type) open twice: \(names)")
                #expect(entries.contains { $0.type == type && $0.endTime != nil })
            }
            let latest = entries.compactMap(\.date).max() ?? 0
            #expect(latest <= end && latest > end - 365 * 86_400)
        }
    }

    @Test("dates are written as FHIR dateTimes that read back to the same second")
    func dates() {
        for seconds: Int64 in [0, 86_399, 951_782_400, -972_586_800, 1_735_689_599, -62_135_596_800] {
            let text = SyntheticFHIRDates.dateTime(seconds)
            #expect(FHIRDate.parse(text)?.seconds == seconds, "\(text)")
        }
    }
}

/// The demo's family as real records are (`lifelike`): results with normal ranges and flags, reactions
/// named, entries in proportion to age and health, a grandparent who has died.
@Suite("synthetic FHIR bundles, lifelike")
struct SyntheticLifelikeFHIRTests {
    static let end: Int64 = 1_790_000_000

    @Test("results carry ranges and flags, some out of range; reactions have names; the grandparent died and their record ends then")
    func lifelike() throws {
        let generator = SyntheticRecords(seed: 7)
        let bytes = generator.fhirBundle(entries: 1_500, end: Self.end, lifelike: true)
        #expect(bytes == generator.fhirBundle(entries: 1_500, end: Self.end, lifelike: true))
        let result = try FHIRReader().read(bytes, name: "family.json")
        #expect(result.problems.isEmpty)
        let family = generator.family()
        let records = result.patients.compactMap(\.record)
        #expect(records.count == family.count)

        let results = records.flatMap(\.entries).filter { $0.type == .result }
        let ranged = results.filter { $0.referenceRange != nil }
        #expect(ranged.count > results.count / 2)
        let flagged = results.filter { ResultInterpretation.isFlagged($0.interpretation) }
        #expect(!flagged.isEmpty && flagged.count < results.count / 2)
        // A flag agrees with the range it came with.
        for entry in ranged where entry.interpretation == "H" {
            if let value = entry.value, let high = entry.referenceRange?.high?.value { #expect(value > high) }
        }

        let reactions = records.flatMap(\.entries).filter { $0.type == .allergy }.map { AllergyDetails.read($0.rawJSON).reaction }
        #expect(!reactions.isEmpty && !reactions.contains("Reaction"))

        let parent = try #require(family.first { $0.relationship == .parent })
        let grandparent = try #require(records.first { $0.name == parent.name })
        #expect(grandparent.deceased == true)
        let died = try #require(grandparent.deceasedDate)
        #expect(died < Self.end && died > Self.end - 6 * 365 * 86_400)
        #expect((grandparent.entries.compactMap(\.date).max() ?? 0) <= died + 86_400)
        for record in records where record.name != parent.name { #expect(record.deceased == nil) }

        // In proportion: the youngest child has fewer entries than the grandparent.
        let youngest = try #require(family.filter { $0.relationship == .child }.max { $0.birthdate < $1.birthdate })
        let child = try #require(records.first { $0.name == youngest.name })
        #expect(child.entries.count < grandparent.entries.count)
    }

    @Test("without lifelike, the bundle is as before: every person has the entries asked for, nobody died")
    func plain() throws {
        let result = try FHIRReader().read(SyntheticRecords(seed: 7).fhirBundle(entries: 300, end: Self.end), name: "family.json")
        for patient in result.patients {
            #expect(patient.record?.entries.count == 300)
            #expect(patient.record?.deceased == nil)
            #expect(patient.record?.entries.allSatisfy { $0.referenceRange == nil } == true)
        }
    }
}
