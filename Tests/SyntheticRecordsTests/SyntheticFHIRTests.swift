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
